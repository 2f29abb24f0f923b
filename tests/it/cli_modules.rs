//! Module calls through the CLI: an estate written as a root module and local modules applies and
//! re-plans to no changes, blocks moved into a module are renamed with `mv` without churn, `state
//! list` names module addresses, and what stops a call (an input the module does not declare, a
//! failed validation, a `count` read from a resource) is a diagnostic.

use super::cli::Dir;

const ROOT: &str = r#"live {
  estate = "mods"
}

module "net" {
  source = "./modules/net"
  cidr   = "10.0.0.0/16"
  zones  = ["a", "b"]
}

module "bucket" {
  source   = "./modules/bucket"
  for_each = toset(["logs", "media"])
  name     = "mods-${each.key}"
}

output "vpc" {
  value = module.net.vpc_id
}

output "buckets" {
  value = { for k, b in module.bucket : k => b.name }
}
"#;

const NET: &str = r#"variable "cidr" {
  type = string
}

variable "zones" {
  type = list(string)
}

resource "aws_vpc" "main" {
  cidr_block = var.cidr
}

resource "aws_subnet" "zone" {
  count      = length(var.zones)
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet(var.cidr, 8, count.index)
}

output "vpc_id" {
  value = aws_vpc.main.id
}
"#;

const BUCKET: &str = r#"variable "name" {
  type = string

  validation {
    condition     = length(var.name) >= 3
    error_message = "A bucket name has at least three characters."
  }
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
}

output "name" {
  value = aws_s3_bucket.this.bucket
}
"#;

fn estate() -> Dir {
    let dir = Dir::with_config(ROOT);
    dir.write("modules/net/main.tf", NET);
    dir.write("modules/bucket/main.tf", BUCKET);
    dir
}

#[test]
fn cli_an_estate_of_modules_applies_then_plans_no_changes() {
    let dir = estate();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let again = dir.run(&["plan", "--detailed-exitcode"]);
    again.expect_code(0);
    assert_eq!(
        again.stdout,
        "No changes. The live system matches the configuration.\n"
    );
    let listed = dir.run(&["state", "list"]);
    listed.expect_code(0);
    let addresses: Vec<&str> = listed
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(
        addresses,
        [
            r#"module.bucket["logs"].aws_s3_bucket.this"#,
            r#"module.bucket["media"].aws_s3_bucket.this"#,
            "module.net.aws_subnet.zone[0]",
            "module.net.aws_subnet.zone[1]",
            "module.net.aws_vpc.main",
        ]
    );
    let out = dir.run(&["output", "-json", "buckets"]);
    out.expect_code(0);
    assert_eq!(
        out.json(),
        serde_json::json!({ "logs": "mods-logs", "media": "mods-media" })
    );
}

#[test]
fn cli_blocks_moved_into_a_module_are_renamed_with_mv_without_churn() {
    let dir = Dir::with_config(
        r#"live {
  estate = "mods"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#,
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.write(
        "main.tf",
        r#"live {
  estate = "mods"
}

module "net" {
  source = "./modules/net"
  cidr   = "10.0.0.0/16"
  zones  = []
}
"#,
    );
    dir.write("modules/net/main.tf", NET);
    let moved = dir.run(&["plan", "--detailed-exitcode"]);
    moved.expect_code(2);
    assert!(
        moved
            .stdout
            .contains("liveplan mv aws_vpc.main module.net.aws_vpc.main"),
        "{}",
        moved.stdout
    );
    assert!(
        moved.stdout.contains("withheld (possible rename)"),
        "{}",
        moved.stdout
    );
    dir.run(&["mv", "aws_vpc.main", "module.net.aws_vpc.main"])
        .expect_code(0);
    let after = dir.run(&["plan", "--detailed-exitcode"]);
    after.expect_code(0);
    assert_eq!(
        after.stdout,
        "No changes. The live system matches the configuration.\n"
    );
}

#[test]
fn cli_a_module_call_that_does_not_fit_its_module_is_refused() {
    let dir = estate();
    dir.write(
        "main.tf",
        &ROOT
            .replace(
                "  zones  = [\"a\", \"b\"]\n",
                "  zones  = [\"a\", \"b\"]\n  colour = \"blue\"\n",
            )
            .replace(
                "\"mods-${each.key}\"",
                "\"${each.key}\" == \"logs\" ? \"x\" : \"mods-media\"",
            ),
    );
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    let doc = plan.json();
    let found: Vec<(String, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["summary"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        found.contains(&(
            "invalid-argument".to_owned(),
            "Unsupported argument: an argument named `colour` is not expected in module `net`"
                .to_owned()
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "invalid-argument".to_owned(),
            "A bucket name has at least three characters.".to_owned()
        )),
        "{found:?}"
    );
}

#[test]
fn cli_an_output_the_module_does_not_declare_is_named_as_such() {
    let dir = estate();
    dir.write(
        "main.tf",
        &ROOT.replace("module.net.vpc_id", "module.net.vpc_arn"),
    );
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    let doc = plan.json();
    let summaries: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["summary"].as_str().unwrap())
        .collect();
    assert_eq!(
        summaries,
        ["Unsupported attribute: `module.net` has no output `vpc_arn`"]
    );
}

#[test]
fn cli_a_module_count_read_from_a_resource_is_non_static() {
    let dir = Dir::with_config(
        r#"live {
  estate = "mods"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

module "net" {
  source = "./modules/net"
  count  = length(aws_vpc.main.id)
  cidr   = "10.1.0.0/16"
  zones  = []
}
"#,
    );
    dir.write("modules/net/main.tf", NET);
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    let codes = super::cli::codes(&plan.json());
    assert!(codes.contains(&"non-static-count".to_owned()), "{codes:?}");
}

#[test]
fn cli_a_module_given_an_alias_of_another_region_makes_its_objects_there() {
    let dir = Dir::with_config(
        r#"live {
  estate = "mods"
}

provider "aws" {
  region = "us-east-1"
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

module "east" {
  source = "./modules/logs"
  prefix = "east"
}

module "west" {
  source    = "./modules/logs"
  prefix    = "west"
  providers = { aws = aws.west }
}
"#,
    );
    dir.write(
        "modules/logs/main.tf",
        r#"variable "prefix" {
  type = string
}

resource "aws_cloudwatch_log_group" "app" {
  name = "/${var.prefix}/app"
}
"#,
    );
    dir.write(".liveplan/cloud.json", r#"{ "resources": [] }"#);
    let sim = dir.cloud_file().display().to_string();
    dir.run(&["apply", "--auto-approve", "--sim", &sim])
        .expect_code(0);
    let text = std::fs::read_to_string(dir.cloud_file()).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut placed: Vec<(String, String)> = doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["region"].as_str().unwrap_or("us-east-1").to_owned(),
            )
        })
        .collect();
    placed.sort();
    assert_eq!(
        placed,
        [
            ("/east/app".to_owned(), "us-east-1".to_owned()),
            ("/west/app".to_owned(), "us-west-2".to_owned()),
        ]
    );
    let again = dir.run(&["plan", "--sim", &sim, "--detailed-exitcode"]);
    again.expect_code(0);
}

#[test]
fn cli_a_remote_module_is_read_from_the_directory_init_recorded() {
    let dir = Dir::with_config(
        r#"live {
  estate = "mods"
}

module "store" {
  source  = "git::https://example.com/acme/store.git?ref=v1.2.0"
  name    = "mods-remote-store"
}

output "bucket" {
  value = module.store.bucket
}
"#,
    );
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    assert_eq!(super::cli::codes(&plan.json()), ["module-source"]);
    dir.write(
        ".terraform/modules/modules.json",
        r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"store","Source":"git::https://example.com/acme/store.git?ref=v1.2.0","Dir":".terraform/modules/store"}]}"#,
    );
    dir.write(
        ".terraform/modules/store/main.tf",
        r#"variable "name" {
  type = string
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
}

output "bucket" {
  value = aws_s3_bucket.this.bucket
}
"#,
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(dir.live_objects(), ["aws_s3_bucket mods-remote-store"]);
    let out = dir.run(&["output", "-raw", "bucket"]);
    out.expect_code(0);
    assert_eq!(out.stdout, "mods-remote-store");
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
}

/// Runs `git ARGS` in `dir`, which must succeed.
fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cli_init_installs_a_git_module_at_its_ref_and_plans_read_it() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("bucket")).unwrap();
    std::fs::write(repo.path().join("bucket/main.tf"), BUCKET).unwrap();
    git(repo.path(), &["init", "--quiet"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "--quiet", "-m", "one"]);
    git(repo.path(), &["tag", "v1.0.0"]);
    // A later commit the ref must not pick up.
    std::fs::write(repo.path().join("bucket/main.tf"), "this is not HCL {{").unwrap();
    git(repo.path(), &["commit", "--quiet", "-am", "two"]);
    let source = format!("git::file://{}//bucket?ref=v1.0.0", repo.path().display());
    let dir = Dir::with_config(&format!(
        r#"live {{
  estate = "mods"
}}

module "store" {{
  source = "{source}"
  name   = "mods-from-git"
}}
"#
    ));
    let lock = "# kept as it is\n";
    dir.write(".terraform.lock.hcl", lock);
    let before = dir.run(&["plan", "--json"]);
    before.expect_code(1);
    assert_eq!(super::cli::codes(&before.json()), ["module-source"]);
    let init = dir.run(&["init", "-input=false"]);
    init.expect_code(0);
    assert!(
        init.stdout.contains(&format!(
            "- Module store: {source} cloned into .terraform/modules/store/bucket"
        )),
        "{}",
        init.stdout
    );
    let again = dir.run(&["init"]);
    again.expect_code(0);
    assert!(
        again
            .stdout
            .contains("already in .terraform/modules/store/bucket"),
        "{}",
        again.stdout
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".terraform.lock.hcl")).unwrap(),
        lock
    );
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".terraform/modules/modules.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        manifest["Modules"][1],
        serde_json::json!({ "Key": "store", "Source": source, "Dir": ".terraform/modules/store/bucket" })
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(dir.live_objects(), ["aws_s3_bucket mods-from-git"]);
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
}

#[test]
fn cli_init_refuses_a_remote_source_it_cannot_install() {
    let dir = Dir::with_config(
        r#"live {
  estate = "mods"
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
}
"#,
    );
    let init = dir.run(&["init"]);
    init.expect_code(1);
    assert!(init.stdout.contains("[module-source]"), "{}", init.stdout);
    assert!(
        init.stdout.contains("installs `git::` sources only"),
        "{}",
        init.stdout
    );
}
