//! `apply FILE`: a saved plan applies exactly what it showed, with no prompt and no variables; a plan
//! that an object it relies on moved under is refused with `stale-plan` naming it, and nothing changes;
//! two saved plans on disjoint objects of one estate both apply; the file holds no secret in the clear.

use serde_json::Value as Json;

use crate::cli::Dir;

const SECRET: &str = "s3cr3t-owner@example.com";

const BUCKETS: &str = r#"
live {
  estate = "sapply"
}

variable "owner" {
  type      = string
  sensitive = true
}

resource "aws_s3_bucket" "logs" {
  bucket = "sapply-logs"
  tags   = { Owner = var.owner, Team = "TEAM" }
}

variable "env" {
  type    = string
  default = "dev"
}

resource "aws_s3_bucket" "data" {
  bucket = "sapply-data"
  tags   = { Team = "TEAM", Env = var.env }
}
"#;

/// The configuration with every `Team` tag set to `team`.
fn buckets(team: &str) -> String {
    BUCKETS.replace("TEAM", team)
}

/// The live object of id `id` in the sim file.
fn live_object(dir: &Dir, id: &str) -> Json {
    let doc: Json = serde_json::from_slice(&std::fs::read(dir.cloud_file()).unwrap()).unwrap();
    doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or(Json::Null)
}

#[test]
fn cli_saved_apply_applies_exactly_the_saved_plan_without_a_prompt_or_variables() {
    let dir = Dir::with_config(&buckets("blue"));
    let env = [("TF_VAR_owner", SECRET)];
    let plan = dir.run_with_env(&["plan", "-var=env=prod", "-out=tfplan"], &env);
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains("Plan: 2 to add, 0 to change, 0 to destroy.")
    );
    // No terminal, no -auto-approve and no TF_VAR_owner: the saved plan was the review and holds the
    // values.
    let apply = dir.run(&["apply", "tfplan"]);
    apply.expect_code(0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        apply.stdout
    );
    assert!(!apply.stdout.contains(SECRET), "{}", apply.stdout);
    assert_eq!(
        dir.live_objects(),
        ["aws_s3_bucket sapply-data", "aws_s3_bucket sapply-logs"]
    );
    assert_eq!(live_object(&dir, "sapply-logs")["tags"]["Owner"], SECRET);
    assert_eq!(live_object(&dir, "sapply-logs")["tags"]["Team"], "blue");
    assert_eq!(live_object(&dir, "sapply-data")["tags"]["Env"], "prod");
    let again = dir.run_with_env(&["plan", "-var=env=prod"], &env);
    again.expect_code(0);
    assert!(again.stdout.contains("No changes."), "{}", again.stdout);
}

#[test]
fn cli_saved_apply_refuses_a_stale_plan_naming_the_object_that_moved_and_changes_nothing() {
    let dir = Dir::with_config(&buckets("blue"));
    let env = [("TF_VAR_owner", SECRET)];
    dir.run_with_env(&["apply", "-auto-approve"], &env)
        .expect_code(0);
    dir.write("main.tf", &buckets("green"));
    let plan = dir.run_with_env(&["plan", "-out=tfplan"], &env);
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains("Plan: 0 to add, 2 to change, 0 to destroy.")
    );
    // Someone tags the data bucket by hand after the plan was reviewed.
    let text = std::fs::read_to_string(dir.cloud_file()).unwrap();
    let mut doc: Json = serde_json::from_str(&text).unwrap();
    for r in doc["resources"].as_array_mut().unwrap() {
        if r["id"] == "sapply-data" {
            r["tags"]["CostCenter"] = Json::from("42");
        }
    }
    std::fs::write(dir.cloud_file(), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let before = std::fs::read(dir.cloud_file()).unwrap();

    let apply = dir.run(&["apply", "tfplan"]);
    apply.expect_code(1);
    let out = format!("{}{}", apply.stdout, apply.stderr);
    assert!(out.contains("[stale-plan]"), "{out}");
    assert!(
        out.contains("object aws_s3_bucket.data (id sapply-data) changed since the plan"),
        "{out}"
    );
    assert!(
        !out.contains("object aws_s3_bucket.logs"),
        "only what moved is named: {out}"
    );
    assert_eq!(
        std::fs::read(dir.cloud_file()).unwrap(),
        before,
        "nothing was applied"
    );

    let json = dir.run(&["apply", "-json", "tfplan"]);
    json.expect_code(1);
    let codes: Vec<String> = json.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    assert!(codes.iter().all(|c| c == "stale-plan"), "{codes:?}");
    assert_eq!(std::fs::read(dir.cloud_file()).unwrap(), before);
}

#[test]
fn cli_saved_apply_two_saved_plans_on_disjoint_objects_of_one_estate_both_apply() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "disjoint"
}

resource "aws_vpc" "a" {
  cidr_block = "10.1.0.0/16"
  tags       = { Name = "a" }
}

resource "aws_vpc" "b" {
  cidr_block = "10.2.0.0/16"
  tags       = { Name = "b" }
}

resource "aws_s3_bucket" "c" {
  bucket = "disjoint-c"
}
"#,
    );
    dir.run(&["apply", "-auto-approve", "-target=aws_s3_bucket.c"])
        .expect_code(0);
    dir.run(&["plan", "-target=aws_vpc.a", "-out=a.tfplan"])
        .expect_code(0);
    dir.run(&["plan", "-target=aws_vpc.b", "-out=b.tfplan"])
        .expect_code(0);
    // Applied in the other order than planned: each relies only on its own instance.
    let b = dir.run(&["apply", "b.tfplan"]);
    b.expect_code(0);
    assert!(
        b.stdout
            .contains("Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        b.stdout
    );
    let a = dir.run(&["apply", "a.tfplan"]);
    a.expect_code(0);
    assert!(
        a.stdout
            .contains("Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        a.stdout
    );
    let plan = dir.run(&["plan"]);
    plan.expect_code(0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.stdout);
    // A saved plan applies once: its creates are done, so the identity it relied on is taken.
    let again = dir.run(&["apply", "a.tfplan"]);
    again.expect_code(1);
    assert!(again.stdout.contains("[stale-plan]"), "{}", again.stdout);
}

#[test]
fn cli_saved_apply_a_plan_file_holds_no_secret_in_the_clear() {
    let config = r#"
live {
  estate = "sealed"
}

variable "token" {
  type      = string
  sensitive = true
}

resource "aws_iam_user" "ci" {
  name = "sealed-ci"
  tags = { Team = "TEAM" }
}

resource "aws_iam_access_key" "ci" {
  user = aws_iam_user.ci.name
}

resource "aws_s3_bucket" "b" {
  bucket = "sealed-bucket"
  tags   = { Token = var.token, Team = "TEAM" }
}
"#;
    let token = "tok-3f9a1c77e2d84b05";
    let env = [("TF_VAR_token", token)];
    let dir = Dir::with_config(&config.replace("TEAM", "blue"));
    dir.run_with_env(&["apply", "-auto-approve"], &env)
        .expect_code(0);
    let secret = access_key_secret(&dir);
    dir.write("main.tf", &config.replace("TEAM", "green"));
    dir.run_with_env(&["plan", "-out=tfplan"], &env)
        .expect_code(0);
    let bytes = std::fs::read(dir.path().join("tfplan")).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        !text.contains(token),
        "the sensitive variable is in the file"
    );
    assert!(
        !text.contains(&secret),
        "the access key's secret is in the file"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.path().join("tfplan"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the plan file is owner-only");
    }
    // The file alone does not reveal the token, yet the apply uses it.
    dir.run(&["apply", "tfplan"]).expect_code(0);
    assert_eq!(live_object(&dir, "sealed-bucket")["tags"]["Token"], token);
    assert_eq!(live_object(&dir, "sealed-bucket")["tags"]["Team"], "green");
}

/// The access key's secret, as the record store keeps it (the only place it is written).
fn access_key_secret(dir: &Dir) -> String {
    let root = dir
        .path()
        .join(".liveplan/records/sealed/residue/aws_iam_access_key");
    let entry = std::fs::read_dir(&root).unwrap().next().unwrap().unwrap();
    let doc: Json = serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
    let secret = find_string(&doc, "secret").expect("the residue holds the secret");
    assert!(secret.len() >= 16, "{secret}");
    secret
}

/// The first string value under `key` anywhere in `doc`.
fn find_string(doc: &Json, key: &str) -> Option<String> {
    match doc {
        Json::Object(map) => map
            .get(key)
            .and_then(|v| v.as_str().map(str::to_owned))
            .or_else(|| map.values().find_map(|v| find_string(v, key))),
        Json::Array(items) => items.iter().find_map(|v| find_string(v, key)),
        _ => None,
    }
}

#[test]
fn cli_saved_apply_refuses_variables_options_and_a_plan_with_errors() {
    let dir = Dir::with_config(&buckets("blue"));
    dir.run_with_env(&["plan", "-out=tfplan"], &[("TF_VAR_owner", SECRET)])
        .expect_code(0);
    for args in [
        &["apply", "tfplan", "-var", "owner=x"][..],
        &["apply", "tfplan", "-var-file=x.tfvars"],
        &["apply", "tfplan", "-target=aws_s3_bucket.logs"],
    ] {
        let run = dir.run(args);
        run.expect_code(1);
        assert!(
            run.stdout.contains("[unsupported-option]"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("apply FILE takes no"),
            "{args:?}: {}",
            run.stdout
        );
    }
    assert!(!dir.cloud_file().exists(), "nothing was applied");

    // Without the sensitive variable the plan has errors: saved marked errored, never applied.
    dir.run(&["plan", "-out=broken"]).expect_code(1);
    let run = dir.run(&["apply", "broken"]);
    run.expect_code(1);
    assert!(run.stdout.contains("[invalid-plan-file]"), "{}", run.stdout);
    assert!(run.stdout.contains("has errors"), "{}", run.stdout);
    assert!(!dir.cloud_file().exists(), "nothing was applied");
}

#[test]
fn cli_saved_apply_refuses_a_create_whose_identity_was_taken_since_the_plan() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "taken"
}

resource "aws_s3_bucket" "a" {
  bucket = "taken-a"
}
"#,
    );
    dir.run(&["plan", "-out=tfplan"]).expect_code(0);
    // Someone else creates a bucket of that name, with no marker of this estate.
    dir.write(
        ".liveplan/cloud.json",
        r#"{"resources":[{"type":"aws_s3_bucket","id":"taken-a","region":"us-east-1",
            "attributes":{"bucket":"taken-a","arn":"arn:aws:s3:::taken-a"},"tags":{}}]}"#,
    );
    let before = std::fs::read(dir.cloud_file()).unwrap();
    let apply = dir.run(&["apply", "tfplan"]);
    apply.expect_code(1);
    assert!(
        apply.stdout.contains(
            "the saved plan is stale: the identity of the create of aws_s3_bucket.a is no longer free \
             [stale-plan]"
        ),
        "{}",
        apply.stdout
    );
    assert_eq!(
        std::fs::read(dir.cloud_file()).unwrap(),
        before,
        "nothing was applied"
    );
}
