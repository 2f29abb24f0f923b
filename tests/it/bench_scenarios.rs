//! The `liveplan-bench` scenarios at a tiny size: each prints exactly the fields the performance spec
//! lists, and the counts agree with the cost model of BENCHMARKS.md. No timing is asserted here.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::{Value as Json, json};

/// Runs the benchmark binary; returns its result lines (parsed) and its human table.
fn bench(args: &[&str]) -> (Vec<Json>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan-bench"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the benchmark binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "liveplan-bench {args:?} failed:\n{stderr}"
    );
    let lines = String::from_utf8(out.stdout)
        .expect("stdout is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each stdout line is one JSON object"))
        .collect();
    (lines, stderr)
}

/// The field names of a result line, sorted.
fn fields(line: &Json) -> Vec<String> {
    let names: BTreeSet<String> = line
        .as_object()
        .expect("a result line is an object")
        .keys()
        .cloned()
        .collect();
    names.into_iter().collect()
}

fn sorted(names: &[&str]) -> Vec<String> {
    let names: BTreeSet<String> = names.iter().map(|s| (*s).to_owned()).collect();
    names.into_iter().collect()
}

const PLAN_FIELDS: &[&str] = &[
    "scenario",
    "n",
    "latency_ms",
    "api_calls",
    "api_calls_by_operation",
    "store_trips",
    "store_requests",
    "wall_ms",
    "cpu_ms",
    "peak_rss_mb",
    "bound_ms",
    "wall_over_bound",
];

#[test]
fn bench_plan_buckets_costs_a_listing_and_the_tagging_pages() {
    let (lines, table) = bench(&["plan-buckets", "--n", "150"]);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    let mut expected = PLAN_FIELDS.to_vec();
    expected.push("calls_per_instance");
    assert_eq!(fields(line), sorted(&expected));
    assert_eq!(line["scenario"], "plan-buckets");
    assert_eq!(line["n"], 150);
    // ceil(150 / 1000) listing pages + ceil(150 / 100) tagging pages, and no read per bucket.
    assert_eq!(
        line["api_calls_by_operation"],
        json!({ "s3:ListBuckets": 1, "tagging:GetResources": 2 })
    );
    assert_eq!(line["api_calls"], 3);
    assert_eq!(line["calls_per_instance"], 0.02);
    assert_eq!(line["store_trips"], 1);
    // The memory store serves the one bulk read with one request.
    assert_eq!(line["store_requests"], 1);
    // With no latency there is no bound to compare with.
    assert_eq!(line["bound_ms"], 0.0);
    assert_eq!(line["wall_over_bound"], Json::Null);
    assert!(
        table.contains("No changes. The live system matches the configuration."),
        "{table}"
    );
    assert!(!table.contains("WARNING"), "{table}");
}

#[test]
fn bench_plan_converged_costs_what_the_model_says() {
    let (lines, table) = bench(&["plan-converged", "--n", "100", "--latency-ms", "1"]);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(fields(line), sorted(PLAN_FIELDS));
    assert_eq!(line["scenario"], "plan-converged");
    // Per 100 instances: one tagging page for the 60 tagged objects, one listing per marker type, one
    // bucket listing, one log-group page, a role read per role (10), a versioning read per versioning
    // (7); routes, associations and record-backed instances cost no call.
    assert_eq!(
        line["api_calls_by_operation"],
        json!({
            "ec2:DescribeAddresses": 1,
            "ec2:DescribeRouteTables": 1,
            "ec2:DescribeSecurityGroups": 1,
            "ec2:DescribeSubnets": 1,
            "ec2:DescribeVpcs": 1,
            "iam:GetRole": 10,
            "logs:DescribeLogGroups": 1,
            "s3:GetBucketVersioning": 7,
            "s3:ListBuckets": 1,
            "tagging:GetResources": 1,
        })
    );
    assert_eq!(line["api_calls"], 25);
    assert_eq!(line["store_trips"], 1);
    // The memory store serves the one bulk read with one request.
    assert_eq!(line["store_requests"], 1);
    // L × max(depth 1, ceil(25 / 16)) = 1 ms × 2.
    assert_eq!(line["bound_ms"], 2.0);
    assert!(line["wall_over_bound"].is_f64(), "{line}");
    for figure in ["wall_ms", "peak_rss_mb"] {
        assert!(
            line[figure].as_f64().is_some_and(|x| x > 0.0),
            "{figure}: {line}"
        );
    }
    assert!(line["cpu_ms"].is_u64(), "{line}");
    assert!(
        table.contains("No changes. The live system matches the configuration."),
        "{table}"
    );
    assert!(!table.contains("WARNING"), "{table}");
}

const APPLY_FIELDS: &[&str] = &[
    "scenario",
    "n",
    "latency_ms",
    "parallelism",
    "keying",
    "wall_ms",
    "bound_ms",
    "wall_over_bound",
    "max_in_flight",
];

/// Runs `apply-create` on 50 instances at 1 ms and parallelism 4 with `extra` options, and checks what
/// every such line holds: the fields (with `extra_fields`), the limit kept, the bound, the objects made.
fn apply_create(extra: &[&str], extra_fields: &[&str]) -> (Json, String) {
    let mut args = vec![
        "apply-create",
        "--n",
        "50",
        "--latency-ms",
        "1",
        "--parallelism",
        "4",
    ];
    args.extend_from_slice(extra);
    let (lines, table) = bench(&args);
    assert_eq!(lines.len(), 1);
    let line = lines[0].clone();
    let expected: Vec<&str> = APPLY_FIELDS.iter().chain(extra_fields).copied().collect();
    assert_eq!(fields(&line), sorted(&expected));
    assert_eq!(line["keying"], "for-each");
    let in_flight = line["max_in_flight"].as_u64().expect("a count");
    assert!((1..=4).contains(&in_flight), "{line}");
    // max(critical path 3 × (1 ms + w × store latency), 50 × 1 ms / 4).
    assert_eq!(line["bound_ms"], 12.5);
    assert!(table.contains("critical path (creates): 3"), "{table}");
    assert!(
        table.contains("live objects after the apply: 50"),
        "{table}"
    );
    assert!(!table.contains("WARNING"), "{table}");
    (line, table)
}

#[test]
fn bench_apply_create_keeps_within_the_parallelism() {
    apply_create(&[], &[]);
}

#[test]
fn bench_apply_create_with_store_latency_counts_the_store_calls() {
    let (line, table) = apply_create(
        &["--store-latency-ms", "1"],
        &["store_latency_ms", "store_calls"],
    );
    assert_eq!(line["store_latency_ms"], 1);
    // 30 VPCs, subnets and route tables write their intent twice; 20 routes and associations also
    // write their `located` record.
    assert_eq!(line["store_calls"], 30 * 2 + 20 * 3, "{line}");
    assert!(
        table.contains("store calls per create (w): aws_vpc 2, aws_subnet 2"),
        "{table}"
    );
    assert!(table.contains("(w = 3)"), "{table}");
}

#[test]
fn bench_store_latency_is_refused_outside_apply_create() {
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan-bench"))
        .args(["execgraph", "--n", "10", "--store-latency-ms", "1"])
        .output()
        .expect("the benchmark binary runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--store-latency-ms is for apply-create"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bench_execgraph_reports_per_node_figures() {
    let (lines, _) = bench(&["execgraph", "--n", "1000"]);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(
        fields(line),
        sorted(&["scenario", "n", "ns_per_node", "bytes_per_node"])
    );
    assert_eq!(line["n"], 1000);
    assert!(
        line["ns_per_node"].as_f64().is_some_and(|x| x > 0.0),
        "{line}"
    );
    assert!(line["bytes_per_node"].as_f64().is_some(), "{line}");
}

const STORE_FIELDS: &[&str] = &[
    "scenario",
    "n",
    "backend",
    "method",
    "parallelism",
    "rounds",
    "wall_ms",
    "speedup_vs_sequential",
];

#[test]
fn bench_store_getall_local_compares_bulk_with_sequential() {
    let (lines, table) = bench(&[
        "store-getall",
        "--n",
        "30",
        "--backend",
        "local",
        "--rounds",
        "3",
    ]);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(fields(line), sorted(STORE_FIELDS));
        assert_eq!(line["backend"], "local");
        assert_eq!(line["n"], 30);
        assert_eq!(line["rounds"], 3);
    }
    assert!(table.contains("speedup per round: "), "{table}");
    assert_eq!(lines[0]["method"], "get");
    assert_eq!(lines[0]["speedup_vs_sequential"], 1.0);
    assert_eq!(lines[1]["method"], "get_all");
    assert!(
        lines[1]["speedup_vs_sequential"].as_f64().is_some(),
        "{}",
        lines[1]
    );
}

#[test]
fn bench_store_getall_s3_needs_the_emulator_and_compares_parallelism() {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "this test needs the local AWS emulator: run it through scripts/test"
    );
    let (lines, _) = bench(&["store-getall", "--n", "40", "--backend", "s3"]);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(fields(line), sorted(STORE_FIELDS));
        assert_eq!(line["backend"], "s3");
        assert_eq!(line["method"], "get_all");
    }
    assert_eq!(lines[0]["parallelism"], 1);
    assert_eq!(lines[0]["speedup_vs_sequential"], 1.0);
    assert_eq!(lines[1]["parallelism"], 16);
}

#[test]
fn bench_store_getall_s3_says_what_is_missing_without_the_emulator() {
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan-bench"))
        .args(["store-getall", "--n", "5", "--backend", "s3"])
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the benchmark binary runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("store-getall on S3 needs the local AWS emulator: set AWS_ENDPOINT_URL"),
        "{stderr}"
    );
}
