//! `provider "aws"` blocks as Terraform configurations write them, run on the simulated cloud with
//! `--sim FILE`: the region, `default_tags` and `ignore_tags` act; aliases and the `provider`
//! meta-argument pick a configuration; the account checks refuse a wrong account; what only serves to
//! reach AWS is ignored with one warning; the records go beside the file; a remote record store is
//! refused under `--sim` unless asked for.

use crate::cli::{Dir, codes};

const PROVIDERS_TF: &str = r#"
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.0" }
  }
}

provider "aws" {
  region              = "eu-west-1"
  profile             = "platform-admin"
  allowed_account_ids = ["123456789012"]

  default_tags {
    tags = { team = "network", env = "dev" }
  }
  ignore_tags {
    key_prefixes = ["kubernetes.io/"]
  }
}

provider "aws" {
  alias  = "plain"
  region = "eu-west-1"
}

provider "aws" {
  alias  = "virginia"
  region = "us-east-1"
}

resource "aws_vpc" "main" {
  cidr_block = "10.20.0.0/16"
  tags       = { Name = "main", env = "prod" }
}

resource "aws_cloudwatch_log_group" "flow" {
  provider = aws.plain
  name     = "/network/flow"
}
"#;

fn tags_of(dir: &Dir, file: &str, type_name: &str) -> serde_json::Map<String, serde_json::Value> {
    let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
    let cloud: serde_json::Value = serde_json::from_str(&text).unwrap();
    let object = cloud["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == type_name)
        .unwrap_or_else(|| panic!("no {type_name} in {text}"));
    object["tags"].as_object().cloned().unwrap_or_default()
}

#[test]
fn cli_providers_default_and_ignored_tags_act_on_the_simulated_cloud() {
    let dir = Dir::new();
    dir.write("main.tf", PROVIDERS_TF);
    let sim = ["--estate", "net", "--sim", "world.json"];
    let apply = dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat());
    apply.expect_code(0);
    assert!(
        apply.stdout.contains("Apply complete! Resources: 2 added"),
        "{}",
        apply.stdout
    );
    // The resource's own `env` wins over the default; the aliased configuration has no default tags.
    let vpc = tags_of(&dir, "world.json", "aws_vpc");
    assert_eq!(vpc["team"], "network");
    assert_eq!(vpc["env"], "prod");
    assert_eq!(vpc["Name"], "main");
    let logs = tags_of(&dir, "world.json", "aws_cloudwatch_log_group");
    assert!(!logs.contains_key("team"), "{logs:?}");
    // The records of a simulated cloud given with --sim live beside its file.
    assert!(dir.path().join("world.records").is_dir());
    assert!(!dir.path().join(".liveplan/records").exists());

    // A tag under an ignored prefix stays; a foreign tag is removed, since default tags apply.
    let path = dir.path().join("world.json");
    let mut cloud: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for r in cloud["resources"].as_array_mut().unwrap() {
        if r["type"] == "aws_vpc" {
            r["tags"]["kubernetes.io/cluster/blue"] = "owned".into();
            r["tags"]["CostCenter"] = "42".into();
        }
    }
    std::fs::write(&path, serde_json::to_string(&cloud).unwrap()).unwrap();
    let plan = dir.run(&[&["plan", "--json"][..], &sim[..]].concat());
    plan.expect_code(0);
    let doc = plan.json();
    let change = doc["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["address"] == "aws_vpc.main")
        .unwrap()
        .clone();
    assert_eq!(change["action"], "update");
    // An ignored key is shown on neither side (as the AWS provider reads it); the foreign one goes.
    let (before, after) = (&change["before"]["tags_all"], &change["after"]["tags_all"]);
    assert!(
        before.get("kubernetes.io/cluster/blue").is_none(),
        "{before}"
    );
    assert!(after.get("kubernetes.io/cluster/blue").is_none(), "{after}");
    assert_eq!(before["CostCenter"], "42");
    assert!(after.get("CostCenter").is_none(), "{after}");
    assert_eq!(change["before"]["tags"]["CostCenter"], "42");
    assert_eq!(after["tofu-estate"], "net");
    assert_eq!(codes(&doc), ["provider-settings-ignored"]);

    dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat())
        .expect_code(0);
    let vpc = tags_of(&dir, "world.json", "aws_vpc");
    assert_eq!(vpc["kubernetes.io/cluster/blue"], "owned");
    assert!(!vpc.contains_key("CostCenter"));
    let replan = dir.run(&[&["plan", "--detailed-exitcode"][..], &sim[..]].concat());
    replan.expect_code(0);
    assert!(replan.stdout.contains("No changes."), "{}", replan.stdout);
    assert!(
        replan.stdout.contains(
            "Warning: the simulated cloud ignores `profile` (provider `aws`): it needs no credentials or endpoints [provider-settings-ignored]"
        ),
        "{}",
        replan.stdout
    );
}

#[test]
fn cli_providers_without_tags_or_default_tags_a_foreign_tag_is_left_alone() {
    let dir = Dir::new();
    dir.write(
        "main.tf",
        "provider \"aws\" {\n  region = \"eu-west-1\"\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.30.0.0/16\"\n}\n",
    );
    let sim = ["--estate", "bare", "--sim", "world.json"];
    dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat())
        .expect_code(0);
    let path = dir.path().join("world.json");
    let mut cloud: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cloud["resources"][0]["tags"]["Owner"] = "someone-else".into();
    std::fs::write(&path, serde_json::to_string(&cloud).unwrap()).unwrap();
    let plan = dir.run(&[&["plan", "--detailed-exitcode"][..], &sim[..]].concat());
    plan.expect_code(0);
    assert_eq!(
        plan.stdout,
        "No changes. The live system matches the configuration.\n"
    );
}

#[test]
fn cli_providers_account_checks_refuse_the_wrong_account_before_anything_is_read() {
    let dir = Dir::new();
    dir.write(
        "main.tf",
        "provider \"aws\" {\n  forbidden_account_ids = [\"123456789012\"]\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.40.0.0/16\"\n}\n",
    );
    let sim = ["--estate", "acct", "--sim", "world.json"];
    let apply = dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat());
    apply.expect_code(1);
    assert!(
        format!("{}{}", apply.stdout, apply.stderr).contains(
            "account 123456789012 of world.json is in `forbidden_account_ids` of provider `aws` [account-not-allowed]"
        ),
        "{}{}",
        apply.stdout,
        apply.stderr
    );
    assert!(!dir.path().join("world.json").exists());

    dir.write(
        "main.tf",
        "provider \"aws\" {\n  allowed_account_ids = [\"210987654321\"]\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.40.0.0/16\"\n}\n",
    );
    let plan = dir.run(&[&["plan", "--json"][..], &sim[..]].concat());
    plan.expect_code(1);
    assert_eq!(codes(&plan.json()), ["account-not-allowed"]);
}

#[test]
fn cli_providers_a_remote_record_store_is_refused_under_sim_unless_asked_for() {
    let dir = Dir::new();
    dir.write(
        "main.tf",
        "live {\n  estate = \"team\"\n  record_store \"ssm\" {\n    key_prefix = \"/team/net\"\n  }\n}\n\nprovider \"aws\" {\n  region = \"eu-west-1\"\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.50.0.0/16\"\n}\n",
    );
    let plan = dir.run(&["plan", "--json", "--sim", "world.json"]);
    plan.expect_code(1);
    assert_eq!(codes(&plan.json()), ["record-store-config"]);
    let text = dir.run(&["plan", "--sim", "world.json"]);
    let shown = format!("{}{}", text.stdout, text.stderr);
    assert!(shown.contains("--sim-remote-records"), "{shown}");
}

/// The region of each object of the simulated cloud in `file`, by type.
fn regions_of(dir: &Dir, file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
    let cloud: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut found: Vec<(String, String)> = cloud["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let region = r["region"]
                .as_str()
                .or(cloud["region"].as_str())
                .unwrap_or_default();
            (r["type"].as_str().unwrap().to_owned(), region.to_owned())
        })
        .collect();
    found.sort();
    found
}

#[test]
fn cli_providers_a_second_region_through_an_alias_is_planned_and_applied_there() {
    let dir = Dir::new();
    dir.write(
        "main.tf",
        &PROVIDERS_TF.replace("aws.plain", "aws.virginia"),
    );
    let sim = ["--estate", "net", "--sim", "world.json"];
    let apply = dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat());
    apply.expect_code(0);
    // Each object lives in the region of its provider configuration.
    assert_eq!(
        regions_of(&dir, "world.json"),
        [
            (
                "aws_cloudwatch_log_group".to_owned(),
                "us-east-1".to_owned()
            ),
            ("aws_vpc".to_owned(), "eu-west-1".to_owned()),
        ]
    );
    // The converged plan reads both regions, and says what each cost.
    let replan = dir.run(&[&["plan", "--json"][..], &sim[..]].concat());
    replan.expect_code(0);
    let doc = replan.json();
    let by_region = &doc["cost"]["api_calls_by_region"];
    assert!(by_region["eu-west-1"].as_u64().unwrap() >= 1, "{doc}");
    assert!(by_region["us-east-1"].as_u64().unwrap() >= 1, "{doc}");
    let text = dir.run(&[&["plan", "--detailed-exitcode"][..], &sim[..]].concat());
    text.expect_code(0);
    assert!(text.stdout.contains("No changes."), "{}", text.stdout);

    // The log group leaves the configuration; its alias still reaches us-east-1: it is deleted there.
    let without = PROVIDERS_TF.replace("aws.plain", "aws.virginia");
    let cut = without
        .find("resource \"aws_cloudwatch_log_group\"")
        .unwrap();
    dir.write("main.tf", &without[..cut]);
    let plan = dir.run(&[&["plan", "--detailed-exitcode"][..], &sim[..]].concat());
    plan.expect_code(2);
    assert!(
        plan.stdout
            .contains("aws_cloudwatch_log_group.flow: /network/flow will be destroyed"),
        "{}",
        plan.stdout
    );
    dir.run(&[&["apply", "--auto-approve"][..], &sim[..]].concat())
        .expect_code(0);
    assert_eq!(
        regions_of(&dir, "world.json"),
        [("aws_vpc".to_owned(), "eu-west-1".to_owned())]
    );
}

#[test]
fn cli_providers_an_undeclared_alias_is_refused() {
    let dir = Dir::new();
    dir.write("main.tf", &PROVIDERS_TF.replace("aws.plain", "aws.ireland"));
    let validate = dir.run(&["validate", "--estate", "net", "--sim", "world.json"]);
    validate.expect_code(1);
    assert!(
        format!("{}{}", validate.stdout, validate.stderr).contains("`provider = aws.ireland` names a provider configuration that is not declared [unknown-reference]"),
        "{}{}",
        validate.stdout,
        validate.stderr
    );
}
