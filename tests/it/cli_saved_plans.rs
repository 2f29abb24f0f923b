//! Saved plans: `plan -out FILE` writes the plan owner-only (also when it has errors), `show FILE` prints it
//! as `plan` printed it, `show -json FILE` as Terraform's JSON plan representation, and `show -json` with
//! no file what the estate owns as Terraform's state representation. No secret is ever in the file.

use serde_json::json;

use crate::cli::Dir;

const TF: &str = r#"
live {
  estate = "saved"
}

variable "owner" {
  type      = string
  sensitive = true
}

variable "environment" {
  type    = string
  default = "dev"
}

resource "aws_s3_bucket" "logs" {
  bucket = "saved-logs"
  tags   = merge({ Environment = var.environment }, { Owner = var.owner })
}

output "bucket" {
  value = aws_s3_bucket.logs.bucket
}
"#;

const SECRET: &str = "s3cr3t-owner@example.com";

#[test]
fn cli_saved_plans_plan_out_writes_an_owner_only_file_that_show_prints_as_plan_printed_it() {
    let dir = Dir::with_config(TF);
    let env = [("TF_VAR_owner", SECRET)];
    let plan = dir.run_with_env(&["plan", "-out=tfplan"], &env);
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains("Plan: 1 to add, 0 to change, 0 to destroy."),
        "{}",
        plan.stdout
    );
    let path = dir.path().join("tfplan");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the plan file is owner-only");
    }
    // Shown from the file alone: the same text, with no live read.
    std::fs::remove_file(dir.cloud_file()).ok();
    let show = dir.run(&["show", "tfplan"]);
    show.expect_code(0);
    assert_eq!(show.stdout, plan.stdout);

    let doc = dir.run(&["show", "-json", "tfplan"]);
    doc.expect_code(0);
    assert_eq!(doc.stdout.lines().count(), 1, "{}", doc.stdout);
    let doc = doc.json();
    assert_eq!(doc["format_version"], "1.2");
    assert_eq!(doc["terraform_version"], "1.9.8");
    assert_eq!(doc["applyable"], true);
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["errored"], false);
    assert_eq!(doc["resource_drift"], json!([]));
    assert_eq!(doc["variables"]["environment"], json!({ "value": "dev" }));
    let rc = &doc["resource_changes"][0];
    assert_eq!(rc["address"], "aws_s3_bucket.logs");
    assert_eq!(rc["mode"], "managed");
    assert_eq!(rc["name"], "logs");
    assert_eq!(rc["provider_name"], "registry.terraform.io/hashicorp/aws");
    assert_eq!(rc["change"]["actions"], json!(["create"]));
    assert_eq!(rc["change"]["before"], json!(null));
    assert_eq!(rc["change"]["after"]["bucket"], "saved-logs");
    assert_eq!(rc["change"]["after_unknown"]["arn"], true);
    assert_eq!(rc["change"]["after_unknown"]["id"], true);
    assert_eq!(rc["liveplan"]["admission"], "client-named");
    let planned = &doc["planned_values"]["root_module"]["resources"][0];
    assert_eq!(planned["address"], "aws_s3_bucket.logs");
    assert_eq!(planned["values"]["bucket"], "saved-logs");
    assert_eq!(
        doc["planned_values"]["outputs"]["bucket"],
        json!({ "sensitive": false, "value": "saved-logs" })
    );
    assert_eq!(
        doc["output_changes"]["bucket"]["actions"],
        json!(["create"])
    );
    assert_eq!(
        doc["configuration"]["root_module"]["resources"][0]["expressions"]["bucket"],
        json!({ "constant_value": "saved-logs" })
    );
    assert_eq!(
        doc["configuration"]["root_module"]["outputs"]["bucket"]["expression"],
        json!({ "references": ["aws_s3_bucket.logs.bucket", "aws_s3_bucket.logs"] })
    );
    assert_eq!(doc["liveplan"]["estate"], "saved");
    assert_eq!(
        doc["liveplan"]["summary"],
        json!({ "add": 1, "change": 0, "destroy": 0 })
    );
}

#[test]
fn cli_saved_plans_a_sensitive_value_is_never_in_the_file_and_its_siblings_stay_in_the_clear() {
    let dir = Dir::with_config(TF);
    dir.run_with_env(&["plan", "-out", "tfplan"], &[("TF_VAR_owner", SECRET)])
        .expect_code(0);
    let bytes = std::fs::read_to_string(dir.path().join("tfplan")).unwrap();
    assert!(!bytes.contains(SECRET), "the secret is in the plan file");
    let doc = dir.run(&["show", "-json", "tfplan"]).json();
    assert!(!doc.to_string().contains(SECRET));
    let change = &doc["resource_changes"][0]["change"];
    assert_eq!(change["after"]["tags"]["Owner"], json!(null));
    assert_eq!(change["after"]["tags"]["Environment"], "dev");
    assert_eq!(change["after_sensitive"]["tags"], json!({ "Owner": true }));
    assert_eq!(doc["variables"]["owner"], json!({ "value": null }));
    assert_eq!(
        doc["planned_values"]["root_module"]["resources"][0]["sensitive_values"]["tags"],
        json!({ "Owner": true })
    );
}

#[test]
fn cli_saved_plans_a_plan_with_errors_is_saved_marked_errored_with_its_diagnostics() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "broken"
}

resource "aws_s3_bucket" "logs" {
  bucket = var.missing
}
"#,
    );
    let plan = dir.run(&["plan", "-out=tfplan"]);
    plan.expect_code(1);
    let show = dir.run(&["show", "tfplan"]);
    show.expect_code(0);
    assert_eq!(show.stdout, plan.stdout);
    let doc = dir.run(&["show", "-json", "tfplan"]).json();
    assert_eq!(doc["errored"], true);
    assert_eq!(doc["applyable"], false);
    let codes: Vec<&str> = doc["liveplan"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"unknown-reference"), "{codes:?}");
}

#[test]
fn cli_saved_plans_show_refuses_a_file_that_is_not_a_liveplan_plan() {
    let dir = Dir::with_config(TF);
    dir.write(
        "terraform.json",
        r#"{"format_version":"1.2","resource_changes":[]}"#,
    );
    dir.write("garbage", "not json at all");
    for file in ["terraform.json", "garbage", "absent"] {
        for json_flag in [false, true] {
            let mut args = vec!["show", file];
            if json_flag {
                args.push("-json");
            }
            let run = dir.run(&args);
            run.expect_code(1);
            let out = format!("{}{}", run.stdout, run.stderr);
            assert!(out.contains("invalid-plan-file"), "{args:?}: {out}");
        }
    }
}

#[test]
fn cli_saved_plans_show_json_without_a_file_prints_what_the_estate_owns_as_state() {
    let dir = Dir::with_config(TF);
    let env = [("TF_VAR_owner", SECRET)];
    dir.run_with_env(&["apply", "-auto-approve"], &env)
        .expect_code(0);
    let run = dir.run_with_env(&["show", "-json"], &env);
    run.expect_code(0);
    assert!(!run.stdout.contains(SECRET));
    let doc = run.json();
    assert_eq!(doc["format_version"], "1.0");
    assert_eq!(doc["terraform_version"], "1.9.8");
    let resources = doc["values"]["root_module"]["resources"]
        .as_array()
        .unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0]["address"], "aws_s3_bucket.logs");
    assert_eq!(resources[0]["values"]["bucket"], "saved-logs");
    assert_eq!(resources[0]["values"]["tags"]["Environment"], "dev");

    let text = dir.run_with_env(&["show"], &env);
    text.expect_code(0);
    assert_eq!(text.stdout, "aws_s3_bucket.logs  saved-logs\n");

    // After the apply, the output's recorded value is the planned one: a no-op.
    dir.run_with_env(&["plan", "-out=again"], &env)
        .expect_code(0);
    let doc = dir.run(&["show", "-json", "again"]).json();
    assert_eq!(doc["output_changes"]["bucket"]["actions"], json!(["no-op"]));
    assert_eq!(doc["applyable"], false, "nothing to apply");
    assert_eq!(
        doc["resource_changes"][0]["change"]["actions"],
        json!(["no-op"])
    );
    assert_eq!(
        doc["prior_state"]["values"]["root_module"]["resources"][0]["values"]["bucket"],
        "saved-logs"
    );
}
