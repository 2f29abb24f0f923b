//! The tools Terraform users run on every change, run unchanged on liveplan's saved plans: checkov and
//! terraform-compliance (both pinned, each in its own venv that scripts/test installs, both offline), and a
//! conftest-style policy over `resource_changes[].change.actions`, written here as Rego would read it.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value as Json;

use crate::cli::Dir;

/// Two buckets of which one is versioned (`aws_s3_bucket_versioning` in the AWS provider v5's shape).
const BUCKETS_TF: &str = r#"
live {
  estate = "eco"
}

resource "aws_s3_bucket" "logs" {
  bucket = "eco-logs"
  tags   = { Environment = "dev" }
}

resource "aws_s3_bucket_versioning" "logs" {
  bucket = aws_s3_bucket.logs.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket" "scratch" {
  bucket = "eco-scratch"
  tags   = { Environment = "dev" }
}
"#;

/// A policy tool's executable, as scripts/test installs it and names it in `var`.
fn tool(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: run the tests through scripts/test, which installs the policy tools"
        )
    })
}

/// `plan -out tfplan` then `show -json tfplan` in `dir`, written to `plan.json` there; the document.
fn saved_plan_json(dir: &Dir) -> Json {
    dir.run(&["plan", "-out=tfplan"]).expect_code(0);
    let show = dir.run(&["show", "-json", "tfplan"]);
    show.expect_code(0);
    assert_eq!(show.stdout.lines().count(), 1, "one line: {}", show.stdout);
    dir.write("plan.json", &show.stdout);
    show.json()
}

/// checkov's results as `PASSED|FAILED CHECK_ID RESOURCE` lines, and its resource count.
fn checkov(args: &[&str], dir: &Dir) -> (BTreeSet<String>, u64) {
    let out = Command::new(tool("LIVEPLAN_CHECKOV"))
        .args(args)
        .args(["--skip-download", "--compact", "--output", "json"])
        .current_dir(dir.path())
        .env("BC_SKIP_MAPPING", "TRUE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc: Json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "checkov printed no JSON report ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let report = if doc.is_array() { &doc[0] } else { &doc };
    let mut results = BTreeSet::new();
    for (key, verdict) in [("passed_checks", "PASSED"), ("failed_checks", "FAILED")] {
        for c in report["results"][key].as_array().unwrap() {
            results.insert(format!(
                "{verdict} {} {}",
                c["check_id"].as_str().unwrap(),
                c["resource"].as_str().unwrap()
            ));
        }
    }
    let count = report["summary"]["resource_count"].as_u64().unwrap();
    (results, count)
}

/// What checkov 3.3.30 finds on the two buckets, by hand: versioning (CKV_AWS_21) passes on the versioned
/// bucket and fails on the other; neither has logging, encryption by KMS, replication, event
/// notifications, a public access block or a lifecycle configuration; the provider block holds no keys.
const CHECKOV_EXPECTED: &[&str] = &[
    "PASSED CKV_AWS_41 aws.default",
    "PASSED CKV_AWS_19 aws_s3_bucket.logs",
    "PASSED CKV_AWS_19 aws_s3_bucket.scratch",
    "PASSED CKV_AWS_20 aws_s3_bucket.logs",
    "PASSED CKV_AWS_20 aws_s3_bucket.scratch",
    "PASSED CKV_AWS_21 aws_s3_bucket.logs",
    "PASSED CKV_AWS_57 aws_s3_bucket.logs",
    "PASSED CKV_AWS_57 aws_s3_bucket.scratch",
    "PASSED CKV_AWS_93 aws_s3_bucket.logs",
    "PASSED CKV_AWS_93 aws_s3_bucket.scratch",
    "FAILED CKV_AWS_18 aws_s3_bucket.logs",
    "FAILED CKV_AWS_18 aws_s3_bucket.scratch",
    "FAILED CKV_AWS_21 aws_s3_bucket.scratch",
    "FAILED CKV_AWS_144 aws_s3_bucket.logs",
    "FAILED CKV_AWS_144 aws_s3_bucket.scratch",
    "FAILED CKV_AWS_145 aws_s3_bucket.logs",
    "FAILED CKV_AWS_145 aws_s3_bucket.scratch",
    "FAILED CKV2_AWS_6 aws_s3_bucket.logs",
    "FAILED CKV2_AWS_6 aws_s3_bucket.scratch",
    "FAILED CKV2_AWS_61 aws_s3_bucket.logs",
    "FAILED CKV2_AWS_61 aws_s3_bucket.scratch",
    "FAILED CKV2_AWS_62 aws_s3_bucket.logs",
    "FAILED CKV2_AWS_62 aws_s3_bucket.scratch",
];

/// The checks only a plan gives checkov: the provider configuration's (no HCL resource to scan).
const PLAN_ONLY: &[&str] = &["PASSED CKV_AWS_41 aws.default"];

#[test]
fn ecosystem_checkov_finds_every_resource_of_a_saved_plan_and_judges_each_as_expected() {
    let dir = Dir::with_config(BUCKETS_TF);
    saved_plan_json(&dir);
    let (results, count) = checkov(&["-f", "plan.json", "--framework", "terraform_plan"], &dir);
    assert_eq!(count, 3, "checkov sees every resource of the plan");
    let expected: BTreeSet<String> = CHECKOV_EXPECTED.iter().map(|s| s.to_string()).collect();
    assert_eq!(results, expected);

    // The scan of the configuration itself judges the same, but for the plan-only checks.
    let hcl = Dir::with_config(BUCKETS_TF);
    let (from_hcl, hcl_count) = checkov(&["-d", ".", "--framework", "terraform"], &hcl);
    assert_eq!(hcl_count, 3);
    let plan_only: BTreeSet<String> = PLAN_ONLY.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        from_hcl,
        expected
            .difference(&plan_only)
            .cloned()
            .collect::<BTreeSet<_>>()
    );
}

const FEATURE: &str = "Feature: Buckets follow the house rules

  Scenario: Every bucket carries an Environment tag
    Given I have aws_s3_bucket defined
    When it has tags
    Then it must contain Environment

  Scenario: Every bucket carries a Team tag
    Given I have aws_s3_bucket defined
    When it has tags
    Then it must contain Team
";

#[test]
fn ecosystem_terraform_compliance_runs_a_passing_and_a_failing_scenario_on_a_saved_plan() {
    let dir = Dir::with_config(BUCKETS_TF);
    saved_plan_json(&dir);
    dir.write("features/buckets.feature", FEATURE);
    let out = Command::new(tool("LIVEPLAN_TERRAFORM_COMPLIANCE"))
        .args(["-f", "features", "-p", "plan.json", "--no-ansi"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "one scenario fails:\n{text}");
    assert!(text.contains("2 scenarios (1 passed, 1 failed)"), "{text}");
    for bucket in ["aws_s3_bucket.logs", "aws_s3_bucket.scratch"] {
        assert!(
            text.contains(&format!(
                "Failure: {bucket} (aws_s3_bucket) does not have Team property."
            )),
            "{text}"
        );
    }
}

const BEFORE_TF: &str = r#"
live {
  estate = "acts"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
}

resource "aws_subnet" "b" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.2.0/24"
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_s3_bucket" "kept" {
  bucket = "acts-kept"
  tags   = { Environment = "dev" }
}

resource "aws_subnet" "c" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.5.0/24"
}
"#;

/// The same estate with one bucket retagged, both subnets moved (a forced replacement each, one of them
/// create-before-destroy), one subnet removed and one bucket added.
const AFTER_TF: &str = r#"
live {
  estate = "acts"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.3.0/24"
}

resource "aws_subnet" "b" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.4.0/24"
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_s3_bucket" "kept" {
  bucket = "acts-kept"
  tags   = { Environment = "prod" }
}

resource "aws_s3_bucket" "new" {
  bucket = "acts-new"
}
"#;

/// What a conftest policy counts from `resource_changes[].change.actions`, as Rego reads the list: a replace
/// is any list holding both "delete" and "create", a delete is `["delete"]` alone.
fn policy_counts(plan: &Json) -> Vec<(&'static str, usize)> {
    let mut counts = vec![
        ("create", 0),
        ("update", 0),
        ("replace", 0),
        ("delete", 0),
        ("no-op", 0),
    ];
    for rc in plan["resource_changes"].as_array().unwrap() {
        let actions: Vec<&str> = rc["change"]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let i = match actions.as_slice() {
            ["create"] => 0,
            ["update"] => 1,
            a if a.contains(&"delete") && a.contains(&"create") => 2,
            ["delete"] => 3,
            ["no-op"] => 4,
            other => panic!("actions Terraform never writes: {other:?}"),
        };
        counts[i].1 += 1;
    }
    counts
}

#[test]
fn ecosystem_an_actions_policy_counts_creates_updates_replaces_and_deletes() {
    let dir = Dir::with_config(BEFORE_TF);
    dir.run(&["apply", "-auto-approve"]).expect_code(0);
    dir.write("main.tf", AFTER_TF);
    let plan = saved_plan_json(&dir);
    let counts = policy_counts(&plan);
    assert_eq!(
        counts,
        [
            ("create", 1),
            ("update", 1),
            ("replace", 2),
            ("delete", 1),
            ("no-op", 1)
        ]
    );
    let change = |address: &str| -> &Json {
        plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|rc| rc["address"] == address)
            .unwrap_or_else(|| panic!("{address} is listed"))
    };
    let a = change("aws_subnet.a");
    assert_eq!(
        a["change"]["actions"],
        serde_json::json!(["delete", "create"])
    );
    assert_eq!(
        a["change"]["replace_paths"],
        serde_json::json!([["cidr_block"]])
    );
    assert_eq!(a["action_reason"], "replace_because_cannot_update");
    assert_eq!(
        change("aws_subnet.b")["change"]["actions"],
        serde_json::json!(["create", "delete"])
    );
    let gone = change("aws_subnet.c");
    assert_eq!(gone["action_reason"], "delete_because_no_resource_config");
    assert_eq!(gone["change"]["after"], Json::Null);
    assert_eq!(gone["change"]["before"]["cidr_block"], "10.0.5.0/24");
    let prior: Vec<&str> = plan["prior_state"]["values"]["root_module"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["address"].as_str().unwrap())
        .collect();
    assert_eq!(
        prior,
        [
            "aws_s3_bucket.kept",
            "aws_subnet.a",
            "aws_subnet.b",
            "aws_subnet.c",
            "aws_vpc.main"
        ]
    );
    assert_eq!(
        change("aws_vpc.main")["change"]["actions"],
        serde_json::json!(["no-op"])
    );
    assert_eq!(plan["applyable"], true);
    assert_eq!(plan["errored"], false);
}
