//! Every configuration file Terraform and OpenTofu read, through the binary: a `.tf.json` file plans as
//! its `.tf` twin (and is never ignored, which would plan to destroy what it declares), a `.tofu` file
//! shadows its `.tf` twin, override files merge, `liveplan.hcl` and `LIVEPLAN_ESTATE` name the estate,
//! a backend is ignored with a warning, and `required_version` is judged against the language level.

use crate::cli::{Dir, actions, codes};

const NETWORK_TF: &str = r#"
variable "cidr" {
  type    = string
  default = "10.42.0.0/16"
}

resource "aws_vpc" "main" {
  cidr_block = var.cidr
  tags       = { Name = "acme-${var.cidr}" }
}

resource "aws_subnet" "zone" {
  count             = 2
  vpc_id            = aws_vpc.main.id
  cidr_block        = cidrsubnet(var.cidr, 8, count.index)
  availability_zone = "us-east-1a"
}
"#;

const NETWORK_JSON: &str = r#"{
  "variable": { "cidr": { "type": "string", "default": "10.42.0.0/16" } },
  "resource": {
    "aws_vpc": {
      "main": { "cidr_block": "${var.cidr}", "tags": { "Name": "acme-${var.cidr}" } }
    },
    "aws_subnet": {
      "zone": {
        "count": 2,
        "vpc_id": "${aws_vpc.main.id}",
        "cidr_block": "${cidrsubnet(var.cidr, 8, count.index)}",
        "availability_zone": "us-east-1a"
      }
    }
  }
}"#;

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

#[test]
fn cli_files_a_tf_json_file_plans_as_its_tf_twin_and_is_never_ignored() {
    let hcl = Dir::new();
    hcl.write("liveplan.hcl", LIVE);
    hcl.write("network.tf", NETWORK_TF);
    let json = Dir::new();
    json.write("liveplan.hcl", LIVE);
    json.write("network.tf.json", NETWORK_JSON);
    let (a, b) = (hcl.run(&["plan", "--json"]), json.run(&["plan", "--json"]));
    a.expect_code(0);
    b.expect_code(0);
    assert_eq!(a.json()["resource_changes"], b.json()["resource_changes"]);
    assert_eq!(
        actions(&b.json()),
        [
            "aws_subnet.zone[0] create",
            "aws_subnet.zone[1] create",
            "aws_vpc.main create"
        ]
    );

    // Applied from the `.tf` file, the estate is converged when the same configuration is written as
    // JSON: the objects it declares are not "no longer declared".
    hcl.run(&["apply", "--auto-approve"]).expect_code(0);
    std::fs::remove_file(hcl.path().join("network.tf")).unwrap();
    hcl.write("network.tf.json", NETWORK_JSON);
    let plan = hcl.run(&["plan", "--detailed-exitcode"]);
    plan.expect_code(0);
    assert_eq!(
        plan.stdout,
        "No changes. The live system matches the configuration.\n"
    );
}

#[test]
fn cli_files_a_tofu_file_shadows_its_tf_twin() {
    let dir = Dir::new();
    dir.write("liveplan.hcl", LIVE);
    dir.write(
        "storage.tf",
        "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs-terraform\"\n}\n",
    );
    dir.write(
        "storage.tofu",
        "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs-opentofu\"\n}\n",
    );
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(actions(&doc), ["aws_s3_bucket.logs create"]);
    assert_eq!(
        doc["resource_changes"][0]["after"]["bucket"],
        "acme-logs-opentofu"
    );
}

#[test]
fn cli_files_override_files_merge_into_the_configuration() {
    let dir = Dir::new();
    dir.write("liveplan.hcl", LIVE);
    dir.write("network.tf", NETWORK_TF);
    dir.write(
        "override.tf",
        "resource \"aws_vpc\" \"main\" {\n  tags = { Name = \"overridden\" }\n}\n",
    );
    dir.write(
        "zones_override.tf.json",
        r#"{ "resource": { "aws_subnet": { "zone": { "count": 1 } } } }"#,
    );
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(
        actions(&doc),
        ["aws_subnet.zone[0] create", "aws_vpc.main create"]
    );
    let vpc = &doc["resource_changes"][1]["after"];
    assert_eq!(vpc["cidr_block"], "10.42.0.0/16");
    assert_eq!(vpc["tags"]["Name"], "overridden");

    // An override of a block no primary file declares is refused, not silently added.
    dir.write(
        "extra_override.tf",
        "resource \"aws_vpc\" \"typo\" {\n  cidr_block = \"10.9.0.0/16\"\n}\n",
    );
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(1);
    assert_eq!(codes(&run.json()), ["invalid-override"]);
}

#[test]
fn cli_files_liveplan_hcl_and_liveplan_estate_name_the_estate() {
    let dir = Dir::new();
    dir.write("network.tf", NETWORK_TF);
    // No estate at all: the error lists the three ways to give one.
    let run = dir.run(&["plan"]);
    run.expect_code(1);
    for way in ["liveplan.hcl", "--estate", "LIVEPLAN_ESTATE"] {
        assert!(run.stdout.contains(way), "{way}: {}", run.stdout);
    }
    // The environment names it; `--estate` wins over the environment.
    let run = dir.run_with_env(&["plan", "--json"], &[("LIVEPLAN_ESTATE", "from-env")]);
    run.expect_code(0);
    assert_eq!(run.json()["estate"], "from-env");
    let run = dir.run_with_env(
        &["plan", "--json", "--estate", "from-flag"],
        &[("LIVEPLAN_ESTATE", "from-env")],
    );
    assert_eq!(run.json()["estate"], "from-flag");
    // liveplan.hcl names it, and agrees with an environment naming the same estate.
    dir.write("liveplan.hcl", LIVE);
    let run = dir.run_with_env(&["plan", "--json"], &[("LIVEPLAN_ESTATE", "acme")]);
    run.expect_code(0);
    assert_eq!(run.json()["estate"], "acme");
    // Both in liveplan.hcl and in a `.tf` file is one declaration too many.
    dir.write("live.tf", LIVE);
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(1);
    assert_eq!(codes(&run.json()), ["duplicate-declaration"]);
}

#[test]
fn cli_files_an_outside_estate_that_differs_from_the_configured_one_is_estate_conflict() {
    let dir = Dir::new();
    dir.write("network.tf", NETWORK_TF);
    dir.write("liveplan.hcl", LIVE);
    let run = dir.run_with_env(&["plan", "--json"], &[("LIVEPLAN_ESTATE", "other")]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["estate-conflict"]);
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "the `live` block in liveplan.hcl names estate \"acme\" but LIVEPLAN_ESTATE names \"other\""
    );
    let run = dir.run(&["plan", "--json", "--estate", "other"]);
    run.expect_code(1);
    let summary = run.json()["diagnostics"][0]["summary"].clone();
    assert_eq!(
        summary,
        "the `live` block in liveplan.hcl names estate \"acme\" but --estate names \"other\""
    );
}

#[test]
fn cli_files_a_backend_block_is_accepted_with_backend_ignored() {
    let dir = Dir::new();
    dir.write("liveplan.hcl", LIVE);
    dir.write("network.tf", NETWORK_TF);
    dir.write(
        "versions.tf",
        r#"terraform {
  required_version = ">= 1.5.0"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
  backend "s3" {
    bucket = "acme-terraform-state"
    key    = "network/terraform.tfstate"
    region = "us-east-1"
  }
}
"#,
    );
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["applicable"], true);
    assert_eq!(codes(&doc), ["backend-ignored"]);
    let detail = doc["diagnostics"][0]["detail"].as_str().unwrap();
    assert!(detail.contains(".liveplan/records/"), "{detail}");
    let text = dir.run(&["plan"]);
    text.expect_code(0);
    assert!(
        text.stdout
            .contains("the `backend \"s3\"` block is ignored: liveplan keeps no state file"),
        "{}",
        text.stdout
    );
}

#[test]
fn cli_files_required_version_refusal_names_the_constraint_and_the_implemented_level() {
    let dir = Dir::new();
    dir.write("liveplan.hcl", LIVE);
    dir.write("network.tf", NETWORK_TF);
    dir.write(
        "versions.tf",
        "terraform {\n  required_version = \">= 1.10.0\"\n}\n",
    );
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["required-version"]);
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "this configuration requires Terraform \">= 1.10.0\", and liveplan implements the language of \
         Terraform 1.9.8"
    );
    let run = dir.run(&["validate"]);
    run.expect_code(1);
    assert!(run.stdout.contains(">= 1.10.0"), "{}", run.stdout);
}
