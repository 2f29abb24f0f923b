//! Faults of the live system end to end: the `liveplan` binary against a file-backed simulated cloud whose
//! snapshot injects throttling, server errors and denials. Transient faults are retried a bounded number
//! of times; a fault that persists withholds what depends on it (plan) or fails one operation (apply), and
//! the next plan converges with no duplicate.

use serde_json::json;

use crate::reliability_support::{EstateDir, NETWORK, actions, codes};

/// Calls made to `operation` by the plan of a JSON document, retries included.
fn calls(plan: &serde_json::Value, operation: &str) -> u64 {
    plan["cost"]["api_calls_by_operation"][operation]
        .as_u64()
        .unwrap_or(0)
}

#[test]
fn reliability_faults_throttles_and_server_errors_are_retried_then_succeed() {
    let estate = EstateDir::new(&NETWORK);
    estate.set_faults(json!([
        { "operation": "ec2:DescribeVpcs", "kind": "throttle", "times": 2 },
        { "operation": "s3:ListBuckets", "kind": "server-error", "times": 3 },
    ]));
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert!(codes(&plan).is_empty(), "{plan:#}");
    // Each attempt is one API call: two throttled attempts then one answer, three failures then one.
    assert_eq!(calls(&plan, "ec2:DescribeVpcs"), 3);
    assert_eq!(calls(&plan, "s3:ListBuckets"), 4);
    assert_eq!(
        plan["summary"],
        json!({ "add": 7, "change": 0, "destroy": 0 })
    );

    // The same faults on the writes of an apply: every create is retried until it lands, once.
    estate.set_faults(json!([
        { "operation": "ec2:CreateSubnet", "kind": "throttle", "times": 3 },
        { "operation": "s3:CreateBucket", "kind": "server-error", "times": 2 },
    ]));
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    estate.set_faults(json!([]));
    assert_eq!(estate.count_of("aws_subnet"), 2);
    assert_eq!(estate.count_of("aws_s3_bucket"), 1);
    assert_eq!(estate.count_of("aws_vpc"), 1);
    estate.run(&["plan", "--detailed-exitcode"]).expect_code(0);
}

#[test]
fn reliability_faults_a_listing_that_keeps_failing_is_discovery_incomplete_and_withholds_creates() {
    let estate = EstateDir::new(&NETWORK);
    estate.set_faults(json!([
        { "operation": "ec2:DescribeSubnets", "kind": "throttle", "times": 99 },
    ]));
    let run = estate.run(&["plan", "--json"]);
    run.expect_code(1);
    let plan = run.json();
    assert_eq!(plan["applicable"], json!(false));
    assert!(
        codes(&plan).contains(&"discovery-incomplete".to_owned()),
        "{plan:#}"
    );
    // Retries are bounded: five attempts, then the listing is given up.
    assert_eq!(calls(&plan, "ec2:DescribeSubnets"), 5);
    // "Could not look" is not "absent": neither subnet is planned for create, nor what needs one.
    let planned = actions(&plan);
    assert!(
        planned
            .iter()
            .all(|a| !a.contains("aws_subnet.") && !a.contains("aws_route_table_association.")),
        "{planned:?}"
    );

    // Apply refuses the plan and touches nothing.
    let applied = estate.run(&["apply", "--auto-approve"]);
    applied.expect_code(1);
    assert!(
        format!("{}{}", applied.stdout, applied.stderr).contains("discovery-incomplete"),
        "{applied:?}"
    );
    assert_eq!(estate.live_objects(), Vec::<String>::new());
}

#[test]
fn reliability_faults_a_failing_sweep_never_plans_a_delete() {
    let estate = EstateDir::new(&NETWORK);
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    // The bucket leaves the configuration: normally a delete, found by the tagging sweep.
    estate.write(
        "main.tf",
        &NETWORK.replace(
            "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"rel-logs\"\n}\n",
            "",
        ),
    );
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert_eq!(actions(&plan), ["delete aws_s3_bucket.logs"]);

    estate.set_faults(json!([
        { "operation": "tagging:GetResources", "kind": "server-error", "times": 99 },
    ]));
    let run = estate.run(&["plan", "--json"]);
    run.expect_code(1);
    let plan = run.json();
    assert!(
        codes(&plan).contains(&"discovery-incomplete".to_owned()),
        "{plan:#}"
    );
    assert_eq!(actions(&plan), Vec::<String>::new());
    estate.run(&["apply", "--auto-approve"]).expect_code(1);
    assert_eq!(estate.count_of("aws_s3_bucket"), 1);
}

#[test]
fn reliability_faults_a_create_that_keeps_failing_fails_alone_and_the_next_plan_converges() {
    let estate = EstateDir::new(&NETWORK);
    estate.set_faults(json!([
        { "operation": "ec2:CreateRouteTable", "kind": "server-error", "times": 99 },
    ]));
    let run = estate.run(&["apply", "--auto-approve"]);
    run.expect_code(1);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("apply-failed"), "{all}");
    assert!(all.contains("aws_route_table.rt"), "{all}");
    // The association needed the route table: skipped, never started.
    assert!(
        !all.contains("aws_route_table_association.a: Creating..."),
        "{all}"
    );
    // Independent branches finished.
    assert_eq!(
        estate.live_objects(),
        [
            "aws_iam_role rel-ops",
            "aws_s3_bucket rel-logs",
            "aws_subnet subnet-00000001",
            "aws_subnet subnet-00000002",
            "aws_vpc vpc-00000001",
        ]
    );

    // Once the fault is gone, the next plan creates only what is missing: no second VPC or subnet.
    estate.set_faults(json!([]));
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert_eq!(
        actions(&plan),
        [
            "create aws_route_table.rt",
            "create aws_route_table_association.a"
        ]
    );
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    estate.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    assert_eq!(estate.count_of("aws_vpc"), 1);
    assert_eq!(estate.count_of("aws_subnet"), 2);
    assert_eq!(estate.count_of("aws_route_table"), 1);
}
