//! The small Terraform commands on the simulated cloud: `state list` and `state show` print what the
//! estate owns (found by discovery, nothing written), `output` the outputs the last apply recorded, and
//! `validate -json` Terraform's validate document, each in Terraform 1.9's layout.

use serde_json::json;

use crate::cli::{Dir, Run};

const STATE_TF: &str = r#"
live {
  estate = "st"
}

variable "owner" {
  type      = string
  sensitive = true
}

resource "aws_s3_bucket" "logs" {
  bucket = "st-logs"
  tags   = merge({ Environment = "dev" }, { Owner = var.owner })
}

resource "aws_s3_bucket_versioning" "logs" {
  bucket = aws_s3_bucket.logs.bucket
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "s" {
  count      = 11
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
"#;

const OWNER: &str = "owner-s3cr3t@example.com";

/// Another estate's bucket and an object no estate owns, already in the cloud.
const NEIGHBOURS: &str = r#"{ "resources": [
  { "type": "aws_s3_bucket", "id": "theirs-logs",
    "tags": { "tofu-estate": "theirs", "tofu-address": "aws_s3_bucket.logs" } },
  { "type": "aws_s3_bucket", "id": "hand-made" }
] }"#;

fn run(dir: &Dir, args: &[&str]) -> Run {
    dir.run_with_env(args, &[("TF_VAR_owner", OWNER)])
}

fn applied_state() -> Dir {
    let dir = Dir::with_config(STATE_TF);
    dir.write(".liveplan/cloud.json", NEIGHBOURS);
    run(&dir, &["apply", "--auto-approve"]).expect_code(0);
    dir
}

/// The owned subnets' addresses, in Terraform's order: indexes by number, so 9 before 10.
fn subnets() -> Vec<String> {
    (0..11).map(|i| format!("aws_subnet.s[{i}]")).collect()
}

#[test]
fn cli_state_list_prints_the_owned_instances_in_terraforms_order_and_nothing_else() {
    let dir = applied_state();
    let list = run(&dir, &["state", "list"]);
    list.expect_code(0);
    let mut expected = vec![
        "aws_s3_bucket.logs".to_owned(),
        "aws_s3_bucket_versioning.logs".to_owned(),
    ];
    expected.extend(subnets());
    expected.push("aws_vpc.main".to_owned());
    // Another estate's bucket and the unowned one are not the estate's.
    assert_eq!(list.stdout.lines().collect::<Vec<_>>(), expected);
    assert_eq!(list.stderr, "");
}

#[test]
fn cli_state_list_filters_by_resource_instance_and_id_as_terraform_does() {
    let dir = applied_state();
    let by_resource = run(&dir, &["state", "list", "aws_subnet.s"]);
    by_resource.expect_code(0);
    assert_eq!(by_resource.stdout.lines().collect::<Vec<_>>(), subnets());
    // Each filter's instances in turn, in the order the filters are given.
    let two = run(&dir, &["state", "list", "aws_vpc.main", "aws_subnet.s[10]"]);
    two.expect_code(0);
    assert_eq!(two.stdout, "aws_vpc.main\naws_subnet.s[10]\n");
    // `-id`: the bucket and its versioning share the bucket's name as id.
    let by_id = run(&dir, &["state", "list", "-id=st-logs"]);
    by_id.expect_code(0);
    assert_eq!(
        by_id.stdout,
        "aws_s3_bucket.logs\naws_s3_bucket_versioning.logs\n"
    );
}

#[test]
fn cli_state_list_refuses_a_filter_that_matches_nothing_with_unknown_instance() {
    let dir = applied_state();
    for (filter, summary) in [
        (
            "aws_subnet.s[11]",
            "Error: Unknown resource instance aws_subnet.s[11]",
        ),
        (
            "aws_s3_bucket.other",
            "Error: Unknown resource aws_s3_bucket.other",
        ),
        ("module.network", "Error: Unknown module module.network"),
    ] {
        let out = run(&dir, &["state", "list", "aws_vpc.main", filter]);
        out.expect_code(1);
        assert_eq!(out.stdout, "", "{filter}: nothing is listed");
        let first = out.stderr.lines().next().unwrap_or("");
        assert_eq!(first, format!("{summary} [unknown-instance]"), "{filter}");
    }
}

#[test]
fn cli_state_list_before_any_apply_lists_nothing_and_creates_nothing() {
    let dir = Dir::with_config(STATE_TF);
    let out = run(&dir, &["state", "list"]);
    out.expect_code(0);
    assert_eq!(out.stdout, "");
    assert!(
        !dir.path().join(".liveplan").exists(),
        "a read-only command created the sim file or the record directory"
    );
}

#[test]
fn cli_state_show_prints_one_instance_in_terraforms_layout_with_sensitive_values_hidden() {
    let dir = applied_state();
    let bucket = run(&dir, &["state", "show", "aws_s3_bucket.logs"]);
    bucket.expect_code(0);
    assert_eq!(
        bucket.stdout,
        r#"# aws_s3_bucket.logs:
resource "aws_s3_bucket" "logs" {
    arn           = "arn:aws:s3:::st-logs"
    bucket        = "st-logs"
    force_destroy = false
    id            = "st-logs"
    tags          = {
        "Environment" = "dev"
        "Owner"       = (sensitive value)
    }
    tags_all      = {
        "Environment"  = "dev"
        "Owner"        = (sensitive value)
        "tofu-address" = "aws_s3_bucket.logs"
        "tofu-estate"  = "st"
    }
}
"#
    );
    assert!(!bucket.stdout.contains(OWNER));
    // A nested block type is a block after the attributes, as Terraform shows it.
    let versioning = run(&dir, &["state", "show", "aws_s3_bucket_versioning.logs"]);
    versioning.expect_code(0);
    assert_eq!(
        versioning.stdout,
        r#"# aws_s3_bucket_versioning.logs:
resource "aws_s3_bucket_versioning" "logs" {
    bucket = "st-logs"
    id     = "st-logs"

    versioning_configuration {
        status = "Enabled"
    }
}
"#
    );
    let subnet = run(&dir, &["state", "show", "aws_subnet.s[10]"]);
    subnet.expect_code(0);
    let lines: Vec<&str> = subnet.stdout.lines().collect();
    assert_eq!(lines[0], "# aws_subnet.s[10]:");
    assert_eq!(lines[1], r#"resource "aws_subnet" "s" {"#);
    assert!(
        lines.contains(&r#"    cidr_block              = "10.0.10.0/24""#),
        "{}",
        subnet.stdout
    );
}

#[test]
fn cli_state_show_of_an_address_the_estate_does_not_own_is_unknown_instance() {
    let dir = applied_state();
    // The resource of a count block is no instance; another estate's bucket is not ours; nor is an
    // undeclared address.
    for address in ["aws_subnet.s", "aws_s3_bucket.theirs", "aws_subnet.s[11]"] {
        let out = run(&dir, &["state", "show", address]);
        out.expect_code(1);
        assert_eq!(out.stdout, "", "{address}");
        assert_eq!(
            out.stderr.lines().next().unwrap_or(""),
            format!("Error: No instance found for the given address {address} [unknown-instance]"),
        );
    }
    let garbled = run(&dir, &["state", "show", "aws_subnet"]);
    garbled.expect_code(1);
    assert!(
        garbled.stderr.contains("[invalid-address]"),
        "{}",
        garbled.stderr
    );
}

const OUTPUT_TF: &str = r#"
live {
  estate = "outs"
}

variable "password" {
  type      = string
  sensitive = true
}

resource "aws_s3_bucket" "site" {
  bucket = "outs-site"
}

output "bucket" {
  value = aws_s3_bucket.site.bucket
}

output "password" {
  value     = var.password
  sensitive = true
}

output "zones" {
  value = ["us-east-1a", "us-east-1b"]
}

output "replicas" {
  value = 3
}

output "public" {
  value = false
}

output "settings" {
  value = { retention = 7, tier = "hot" }
}
"#;

const PASSWORD: &str = "notasecurepassword";

fn out(dir: &Dir, args: &[&str]) -> Run {
    dir.run_with_env(args, &[("TF_VAR_password", PASSWORD)])
}

fn applied_outputs() -> Dir {
    let dir = Dir::with_config(OUTPUT_TF);
    out(&dir, &["apply", "--auto-approve"]).expect_code(0);
    dir
}

#[test]
fn cli_output_lists_every_output_with_sensitive_ones_hidden() {
    let dir = applied_outputs();
    let all = out(&dir, &["output"]);
    all.expect_code(0);
    assert_eq!(
        all.stdout,
        r#"bucket = "outs-site"
password = <sensitive>
public = false
replicas = 3
settings = {
  retention = 7
  tier      = "hot"
}
zones = [
  "us-east-1a",
  "us-east-1b",
]
"#
    );
    assert_eq!(all.stderr, "");
}

#[test]
fn cli_output_name_prints_the_value_alone_and_in_the_clear() {
    let dir = applied_outputs();
    let bucket = out(&dir, &["output", "bucket"]);
    bucket.expect_code(0);
    assert_eq!(bucket.stdout, "\"outs-site\"\n");
    // Terraform does not redact an output asked for by name.
    let password = out(&dir, &["output", "password"]);
    password.expect_code(0);
    assert_eq!(password.stdout, format!("\"{PASSWORD}\"\n"));
}

#[test]
fn cli_output_json_prints_values_types_and_sensitivity_in_the_clear() {
    let dir = applied_outputs();
    let all = out(&dir, &["output", "-json"]);
    all.expect_code(0);
    assert_eq!(
        all.json(),
        json!({
            "bucket": { "sensitive": false, "type": "string", "value": "outs-site" },
            "password": { "sensitive": true, "type": "string", "value": PASSWORD },
            "public": { "sensitive": false, "type": "bool", "value": false },
            "replicas": { "sensitive": false, "type": "number", "value": 3 },
            "settings": {
                "sensitive": false,
                "type": ["object", { "retention": "number", "tier": "string" }],
                "value": { "retention": 7, "tier": "hot" }
            },
            "zones": {
                "sensitive": false,
                "type": ["tuple", ["string", "string"]],
                "value": ["us-east-1a", "us-east-1b"]
            }
        })
    );
    // Indented by two spaces, as Terraform writes it.
    assert!(
        all.stdout
            .starts_with("{\n  \"bucket\": {\n    \"sensitive\": false,")
    );
    let zones = out(&dir, &["output", "-json", "zones"]);
    zones.expect_code(0);
    assert_eq!(zones.stdout, "[\"us-east-1a\",\"us-east-1b\"]\n");
}

#[test]
fn cli_output_raw_prints_a_string_number_or_bool_with_no_quotes_and_no_newline() {
    let dir = applied_outputs();
    for (name, shown) in [
        ("bucket", "outs-site"),
        ("password", PASSWORD),
        ("replicas", "3"),
        ("public", "false"),
    ] {
        let raw = out(&dir, &["output", "-raw", name]);
        raw.expect_code(0);
        assert_eq!(raw.stdout, shown, "{name}");
    }
    for (args, first) in [
        (
            &["output", "-raw", "zones"][..],
            "Error: Unsupported value for raw output [unsupported-raw-output]",
        ),
        (
            &["output", "-raw"],
            "Error: Raw output format is only supported for single outputs [unsupported-raw-output]",
        ),
        (
            &["output", "-raw", "missing"],
            "Error: Output \"missing\" not found [output-not-found]",
        ),
        (
            &["output", "missing"],
            "Error: Output \"missing\" not found [output-not-found]",
        ),
        (
            &["output", "-json", "missing"],
            "Error: Output \"missing\" not found [output-not-found]",
        ),
    ] {
        let refused = out(&dir, args);
        refused.expect_code(1);
        // Nothing on stdout, so that `$(liveplan output -raw NAME)` holds the value or nothing.
        assert_eq!(refused.stdout, "", "{args:?}");
        assert_eq!(
            refused.stderr.lines().next().unwrap_or(""),
            first,
            "{args:?}"
        );
    }
    let zones = out(&dir, &["output", "-raw", "zones"]);
    assert!(
        zones.stderr.contains("but output value \"zones\" is tuple"),
        "{}",
        zones.stderr
    );
}

#[test]
fn cli_output_before_any_apply_warns_no_outputs_found() {
    let dir = Dir::with_config(OUTPUT_TF);
    let none = out(&dir, &["output"]);
    none.expect_code(0);
    assert_eq!(
        none.stdout.lines().next().unwrap_or(""),
        "Warning: No outputs found [no-outputs]"
    );
    // With -json, an empty object, as Terraform prints.
    let json = out(&dir, &["output", "-json"]);
    json.expect_code(0);
    assert_eq!(json.json(), json!({}));
    assert!(!dir.path().join(".liveplan").exists());
}

#[test]
fn cli_output_shows_the_values_of_the_last_apply_not_of_the_configuration() {
    let dir = applied_outputs();
    // The configuration changes and drops an output; until an apply, the records are what the
    // outputs were.
    let edited = OUTPUT_TF
        .replace("value = 3\n", "value = 5\n")
        .replace("output \"public\" {\n  value = false\n}\n", "");
    dir.write("main.tf", &edited);
    assert_eq!(out(&dir, &["output", "-raw", "replicas"]).stdout, "3");
    assert_eq!(out(&dir, &["output", "-raw", "public"]).stdout, "false");
    out(&dir, &["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(out(&dir, &["output", "-raw", "replicas"]).stdout, "5");
    let gone = out(&dir, &["output", "public"]);
    gone.expect_code(1);
    assert!(
        gone.stderr.contains("[output-not-found]"),
        "{}",
        gone.stderr
    );
}

#[test]
fn cli_validate_json_is_terraforms_document_with_ranges_and_liveplans_codes() {
    let bad = Dir::with_config(
        "live {\n  estate = \"v\"\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block           = \"10.0.0.0/16\"\n  enable_dns_hostnames = var.missing\n}\n",
    );
    let run = bad.run(&["validate", "-json"]);
    run.expect_code(1);
    // Line 7 starts at byte 92; `var.missing` at column 26, and the line ends at column 37.
    assert_eq!(
        run.json(),
        json!({
            "format_version": "1.0",
            "valid": false,
            "error_count": 1,
            "warning_count": 0,
            "diagnostics": [{
                "severity": "error",
                "summary": "variable `missing` is not declared",
                "detail": "declare it or fix the reference",
                "range": {
                    "filename": "main.tf",
                    "start": { "line": 7, "column": 26, "byte": 117 },
                    "end": { "line": 7, "column": 37, "byte": 128 }
                },
                "code": "unknown-reference",
                "address": "aws_vpc.main",
                "ids": []
            }]
        })
    );
    assert_eq!(run.stderr, "");

    let good = Dir::with_config(STATE_TF);
    let ok = good.run(&["validate", "-json"]);
    ok.expect_code(0);
    assert_eq!(
        ok.json(),
        json!({
            "format_version": "1.0",
            "valid": true,
            "error_count": 0,
            "warning_count": 0,
            "diagnostics": []
        })
    );
}

#[test]
fn cli_validate_json_of_a_directory_without_configuration_is_still_one_document() {
    let empty = Dir::new();
    let run = empty.run(&["validate", "-json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["format_version"], "1.0");
    assert_eq!(doc["valid"], false);
    assert_eq!(doc["error_count"], 1);
    assert_eq!(crate::cli::codes(&doc), ["no-configuration"]);
}
