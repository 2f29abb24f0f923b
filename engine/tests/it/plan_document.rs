//! Terraform's JSON plan representation of a plan (`engine::tfjson`): the time from the engine's clock,
//! the reasons of deletes as Terraform names them, `check` blocks judged on the planned values, and
//! sensitive leaves written as `null` with their siblings in the clear.

use std::sync::Arc;

use engine::{ManualClock, SystemClock, tfjson};
use serde_json::{Value as Json, json};

use crate::support::Bench;

const BEFORE: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "net" {
  count      = 3
  cidr_block = "10.0.0.0/16"
}

resource "aws_s3_bucket" "b" {
  for_each = toset(["a", "b"])
  bucket   = "acme-${each.key}"
}
"#;

const AFTER: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "net" {
  count      = 2
  cidr_block = "10.0.0.0/16"
}

resource "aws_s3_bucket" "b" {
  for_each = toset(["a"])
  bucket   = "acme-${each.key}"
}

check "named" {
  assert {
    condition     = aws_s3_bucket.b["a"].bucket == "acme-a"
    error_message = "the bucket is misnamed"
  }
}

check "three_networks" {
  assert {
    condition     = length(aws_vpc.net) == 3
    error_message = "there are not three networks"
  }
}

check "arn_known" {
  assert {
    condition     = aws_vpc.net[0].arn != ""
    error_message = "no arn"
  }
}
"#;

fn change<'d>(doc: &'d Json, address: &str) -> &'d Json {
    doc["resource_changes"]
        .as_array()
        .expect("resource_changes")
        .iter()
        .find(|c| c["address"] == address)
        .unwrap_or_else(|| panic!("{address} is listed"))
}

#[tokio::test]
async fn plan_document_names_deletes_by_count_index_and_each_key_and_judges_checks() {
    let world = Bench::empty();
    world.converge(BEFORE).await;
    let plan = world.plan(AFTER).await;
    let doc = tfjson::plan_document(&plan, &SystemClock);

    let vpc = change(&doc, "aws_vpc.net[2]");
    assert_eq!(vpc["change"]["actions"], json!(["delete"]));
    assert_eq!(vpc["action_reason"], "delete_because_count_index");
    assert_eq!(vpc["index"], 2);
    let bucket = change(&doc, "aws_s3_bucket.b[\"b\"]");
    assert_eq!(bucket["action_reason"], "delete_because_each_key");
    assert_eq!(bucket["index"], "b");
    let kept = &change(&doc, "aws_vpc.net[0]")["change"];
    assert_eq!(kept["actions"], json!(["no-op"]));
    assert_eq!(kept["before"], kept["after"]);
    assert_eq!(
        kept["after_unknown"],
        json!({}),
        "a wholly known value has no unknown leaf"
    );
    assert_eq!(vpc["change"]["after"], Json::Null);
    assert_eq!(vpc["change"]["after_sensitive"], false);

    let status: Vec<(String, String)> = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["address"]["to_display"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        status,
        [
            ("check.arn_known".to_owned(), "pass".to_owned()),
            ("check.named".to_owned(), "pass".to_owned()),
            ("check.three_networks".to_owned(), "fail".to_owned()),
        ]
    );
    let failed = &doc["checks"][2]["instances"][0]["problems"][0]["message"];
    assert_eq!(failed, "there are not three networks");
}

#[tokio::test]
async fn plan_document_is_timed_by_the_engines_clock() {
    let world = Bench::empty();
    let clock = Arc::new(ManualClock::at_unix_secs(4_102_444_800));
    let engine = world.engine(4).with_clock(Arc::clone(&clock) as _);
    let plan = world
        .plan_by(&engine, "live {\n  estate = \"acme\"\n}\n")
        .await;
    let doc = tfjson::plan_document(&plan, &SystemClock);
    assert_eq!(doc["timestamp"], "2100-01-01T00:00:00Z");
    assert_eq!(doc["applyable"], false, "nothing to change");
    assert_eq!(doc["errored"], false);
}

#[tokio::test]
async fn plan_document_writes_a_secret_as_null_and_keeps_its_siblings_in_the_clear() {
    let world = Bench::empty();
    let plan = world
        .plan(
            r#"
live {
  estate = "acme"
}

variable "owner" {
  type      = string
  sensitive = true
  default   = "ops@example.com"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
  tags   = merge({ Purpose = "logs" }, { Owner = var.owner })
}
"#,
        )
        .await;
    let line = tfjson::plan_json(&plan, &SystemClock);
    assert!(!line.contains("ops@example.com"), "{line}");
    assert_eq!(line.lines().count(), 1);
    let doc: Json = serde_json::from_str(&line).expect("one JSON document");
    let c = &change(&doc, "aws_s3_bucket.logs")["change"];
    assert_eq!(c["after"]["tags"]["Purpose"], "logs");
    assert_eq!(c["after"]["tags"]["Owner"], Json::Null);
    // `tags_all` holds the configured tags too (and the markers, in the clear).
    assert_eq!(
        c["after_sensitive"],
        json!({ "tags": { "Owner": true }, "tags_all": { "Owner": true } })
    );
    assert_eq!(c["after"]["tags_all"]["Owner"], Json::Null);
    assert_eq!(c["after"]["tags_all"]["tofu-estate"], "acme");
    assert!(c["after"]["tags"].get("tofu-estate").is_none());
    assert_eq!(
        c["after_unknown"],
        json!({ "arn": true, "id": true, "tags": {}, "tags_all": {} })
    );
    assert_eq!(c["before_sensitive"], false);
    assert_eq!(doc["variables"]["owner"], json!({ "value": null }));
    assert_eq!(
        doc["configuration"]["root_module"]["variables"]["owner"],
        json!({ "sensitive": true }),
        "a sensitive variable's default is not written"
    );
}
