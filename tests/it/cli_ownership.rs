//! `liveplan mv` and `liveplan adopt` end to end: zero-churn renames, adoption of unowned objects and
//! bind candidates, and every refusal of the rename rules.

use crate::cli::{Dir, actions, codes};

const SUBNETS: &str = r#"
live {
  estate = "moves"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "this" {
  for_each   = { a = "10.0.1.0/24", b = "10.0.2.0/24" }
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
}

resource "random_id" "tag" {
  byte_length = 2
}

resource "aws_s3_bucket" "data" {
  bucket = "moves-data"
}
"#;

/// The estate applied, then its configuration edited with `edit`.
fn applied_then(edit: impl Fn(&str) -> String) -> Dir {
    let dir = Dir::with_config(SUBNETS);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.write("main.tf", &edit(SUBNETS));
    dir
}

fn renamed_key(config: &str) -> String {
    config.replace("b = \"10.0.2.0/24\"", "c = \"10.0.2.0/24\"")
}

#[test]
fn cli_mv_renames_with_zero_churn_and_moves_records() {
    let dir = applied_then(renamed_key);
    let before = dir.run(&["plan", "--json"]).json();
    assert_eq!(before["rename_hints"][0]["id"], "subnet-00000002");
    assert_eq!(
        before["rename_hints"][0]["command"],
        r#"liveplan mv 'aws_subnet.this["b"]' 'aws_subnet.this["c"]'"#
    );
    let old_key = "moves/intent/aws_subnet/YXdzX3N1Ym5ldC50aGlzWyJiIl0";
    let new_key = "moves/intent/aws_subnet/YXdzX3N1Ym5ldC50aGlzWyJjIl0";
    let keys_of = |dir: &Dir| -> Vec<String> {
        dir.run(&["records", "--json"]).json()["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(keys_of(&dir).contains(&old_key.to_owned()));

    let dry = dir.run(&[
        "mv",
        "--dry-run",
        r#"aws_subnet.this["b"]"#,
        r#"aws_subnet.this["c"]"#,
    ]);
    dry.expect_code(0);
    assert!(dry.stdout.contains("dry run"), "{}", dry.stdout);
    assert!(
        keys_of(&dir).contains(&old_key.to_owned()),
        "a dry run moves nothing"
    );
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(2);

    let mv = dir.run(&["mv", r#"aws_subnet.this["b"]"#, r#"aws_subnet.this["c"]"#]);
    mv.expect_code(0);
    assert!(mv.stdout.contains("Moved subnet-00000002"), "{}", mv.stdout);
    let after = dir.run(&["plan", "--detailed-exitcode"]);
    after.expect_code(0);
    assert_eq!(
        after.stdout,
        "No changes. The live system matches the configuration.\n"
    );
    let keys = keys_of(&dir);
    assert!(keys.contains(&new_key.to_owned()), "{keys:?}");
    assert!(!keys.contains(&old_key.to_owned()), "{keys:?}");
}

#[test]
fn cli_mv_renames_a_record_backed_instance_by_moving_its_record() {
    let dir = applied_then(|c| c.replace(r#""random_id" "tag""#, r#""random_id" "label""#));
    // base64url of `random_id.tag` and `random_id.label`.
    let old_key = "moves/records/random_id/cmFuZG9tX2lkLnRhZw";
    let new_key = "moves/records/random_id/cmFuZG9tX2lkLmxhYmVs";
    let keys_of = |dir: &Dir| -> Vec<String> {
        dir.run(&["records", "--json"]).json()["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(keys_of(&dir).contains(&old_key.to_owned()));
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(2);

    dir.run(&["mv", "random_id.tag", "random_id.label"])
        .expect_code(0);
    let after = dir.run(&["plan", "--detailed-exitcode"]);
    after.expect_code(0);
    assert_eq!(
        after.stdout,
        "No changes. The live system matches the configuration.\n"
    );
    let keys = keys_of(&dir);
    assert!(keys.contains(&new_key.to_owned()), "{keys:?}");
    assert!(!keys.contains(&old_key.to_owned()), "{keys:?}");
}

/// Runs `mv OLD NEW` (plus `extra`) and asserts it is refused with `mv-refused`, changing nothing.
fn refused_mv(dir: &Dir, old: &str, new: &str, extra: &[&str]) -> String {
    let cloud = std::fs::read(dir.cloud_file()).ok();
    let mut args = vec!["mv", "--json", old, new];
    args.extend_from_slice(extra);
    let run = dir.run(&args);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["mv-refused"]);
    assert_eq!(
        std::fs::read(dir.cloud_file()).ok(),
        cloud,
        "a refused mv wrote the cloud"
    );
    doc["diagnostics"][0]["summary"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn cli_mv_refuses_when_nothing_lives_at_old() {
    let dir = applied_then(renamed_key);
    refused_mv(
        &dir,
        r#"aws_subnet.this["zz"]"#,
        r#"aws_subnet.this["c"]"#,
        &[],
    );
}

#[test]
fn cli_mv_refuses_a_new_address_already_claimed() {
    let dir = applied_then(|c| c.to_owned());
    refused_mv(
        &dir,
        r#"aws_subnet.this["b"]"#,
        r#"aws_subnet.this["a"]"#,
        &[],
    );
}

#[test]
fn cli_mv_refuses_a_different_resource_type() {
    let dir = applied_then(|c| c.to_owned());
    refused_mv(
        &dir,
        r#"aws_subnet.this["b"]"#,
        "aws_vpc.other",
        &["--allow-missing-config"],
    );
}

#[test]
fn cli_mv_refuses_an_undeclared_new_address_unless_allowed() {
    let dir = applied_then(|c| c.to_owned());
    refused_mv(
        &dir,
        r#"aws_subnet.this["b"]"#,
        r#"aws_subnet.this["q"]"#,
        &[],
    );
    dir.run(&[
        "mv",
        "--allow-missing-config",
        r#"aws_subnet.this["b"]"#,
        r#"aws_subnet.this["q"]"#,
    ])
    .expect_code(0);
}

#[test]
fn cli_mv_refuses_another_estates_object() {
    let dir = Dir::with_config(
        "live {\n  estate = \"mine\"\n}\n\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"shared-logs\"\n}\n",
    );
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [ { "type": "aws_s3_bucket", "id": "shared-logs",
             "tags": { "tofu-estate": "theirs", "tofu-address": "aws_s3_bucket.old" } } ] }"#,
    );
    refused_mv(&dir, "aws_s3_bucket.old", "aws_s3_bucket.logs", &[]);
}

#[test]
fn cli_mv_refuses_without_an_estate() {
    let dir = applied_then(|c| c.replace("live {\n  estate = \"moves\"\n}\n", ""));
    refused_mv(
        &dir,
        r#"aws_subnet.this["b"]"#,
        r#"aws_subnet.this["a"]"#,
        &[],
    );
}

const ADOPT: &str = r#"
live {
  estate = "adopter"
}

resource "aws_s3_bucket" "data" {
  bucket = "adopt-me"
}

resource "aws_vpc" "main" {
  cidr_block = "10.7.0.0/16"
}
"#;

const UNOWNED: &str = r#"{ "resources": [
  { "type": "aws_s3_bucket", "id": "adopt-me", "tags": { "Owner": "ops" } },
  { "type": "aws_vpc", "id": "vpc-00000005", "attributes": { "cidr_block": "10.7.0.0/16" },
    "tags": { "Name": "hand-made" } }
] }"#;

#[test]
fn cli_adopt_takes_an_unowned_bucket_and_a_bind_candidate() {
    let dir = Dir::with_config(ADOPT);
    dir.write(".liveplan/cloud.json", UNOWNED);
    let plan = dir.run(&["plan", "--json"]).json();
    assert_eq!(
        plan["unowned"][0]["command"],
        "liveplan adopt aws_s3_bucket.data"
    );
    assert_eq!(
        plan["bind_candidates"][0]["command"],
        "liveplan adopt aws_vpc.main --id vpc-00000005"
    );
    assert_eq!(actions(&plan), ["aws_vpc.main create"]);

    let bucket = dir.run(&["adopt", "aws_s3_bucket.data"]);
    bucket.expect_code(0);
    assert!(
        bucket.stdout.contains("Adopted adopt-me"),
        "{}",
        bucket.stdout
    );
    dir.run(&["adopt", "aws_vpc.main", "--id", "vpc-00000005"])
        .expect_code(0);

    let after = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    after.expect_code(0);
    let doc = after.json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    assert_eq!(doc["unowned"], serde_json::json!([]));
    assert_eq!(doc["bind_candidates"], serde_json::json!([]));
    assert_eq!(codes(&doc), Vec::<String>::new());
    // Only tags changed: the owner's own tag stays.
    let cloud = std::fs::read_to_string(dir.cloud_file()).unwrap();
    assert!(cloud.contains("\"Owner\": \"ops\""));
}

#[test]
fn cli_adopt_refuses_another_estates_object() {
    let dir = Dir::with_config(ADOPT);
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [ { "type": "aws_s3_bucket", "id": "adopt-me",
             "tags": { "tofu-estate": "theirs", "tofu-address": "aws_s3_bucket.data" } } ] }"#,
    );
    let before = std::fs::read(dir.cloud_file()).unwrap();
    let run = dir.run(&["adopt", "--json", "aws_s3_bucket.data"]);
    run.expect_code(1);
    assert_eq!(codes(&run.json()), ["adopt-refused"]);
    assert_eq!(std::fs::read(dir.cloud_file()).unwrap(), before);
}

#[test]
fn cli_adopt_refuses_a_server_named_instance_without_an_id() {
    let dir = Dir::with_config(ADOPT);
    dir.write(".liveplan/cloud.json", UNOWNED);
    let run = dir.run(&["adopt", "--json", "aws_vpc.main"]);
    run.expect_code(1);
    assert_eq!(codes(&run.json()), ["adopt-refused"]);
}

#[test]
fn cli_adopt_refuses_an_undeclared_address() {
    let dir = Dir::with_config(ADOPT);
    dir.write(".liveplan/cloud.json", UNOWNED);
    let run = dir.run(&["adopt", "--json", "aws_s3_bucket.nope"]);
    run.expect_code(1);
    assert_eq!(codes(&run.json()), ["adopt-refused"]);
}

/// The record keys `liveplan records --json` lists.
fn record_keys(dir: &Dir) -> Vec<String> {
    dir.run(&["records", "--json"]).json()["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn cli_adopt_refuses_an_object_the_configuration_does_not_declare() {
    let dir = Dir::with_config(ADOPT);
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [
  { "type": "aws_s3_bucket", "id": "precious-prod-data", "tags": { "Owner": "prod" } },
  { "type": "aws_vpc", "id": "vpc-00000006", "attributes": { "cidr_block": "10.9.0.0/16" },
    "tags": { "Name": "other" } }
] }"#,
    );
    let before = std::fs::read(dir.cloud_file()).unwrap();
    for (address, id) in [
        ("aws_s3_bucket.data", "precious-prod-data"),
        ("aws_vpc.main", "vpc-00000006"),
    ] {
        let run = dir.run(&["adopt", "--json", address, "--id", id]);
        run.expect_code(1);
        let doc = run.json();
        assert_eq!(codes(&doc), ["adopt-refused"]);
        let summary = doc["diagnostics"][0]["summary"].as_str().unwrap();
        assert!(summary.starts_with(&format!("{id} is not ")), "{summary}");
    }
    assert_eq!(std::fs::read(dir.cloud_file()).unwrap(), before);
    assert_eq!(record_keys(&dir), Vec::<String>::new());
    // The next plan still leaves both objects alone.
    let plan = dir.run(&["plan", "--json"]).json();
    assert_eq!(
        actions(&plan),
        ["aws_s3_bucket.data create", "aws_vpc.main create"]
    );
}

#[test]
fn cli_adopted_role_is_recorded_and_deleted_once_undeclared() {
    let config = r#"
live {
  estate = "adopter"
}

resource "aws_iam_role" "r" {
  name               = "adopter-r"
  assume_role_policy = "{}"
}
"#;
    let dir = Dir::with_config(config);
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [ { "type": "aws_iam_role", "id": "adopter-r",
             "attributes": { "name": "adopter-r", "assume_role_policy": "{}" } } ] }"#,
    );
    dir.run(&["adopt", "aws_iam_role.r"]).expect_code(0);
    // The create intent is the claim adopt took before it wrote the tags, settled once they were.
    assert_eq!(
        record_keys(&dir),
        [
            "adopter/intent/aws_iam_role/YXdzX2lhbV9yb2xlLnI",
            "adopter/located/aws_iam_role/YXdzX2lhbV9yb2xlLnI"
        ]
    );
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    dir.write("main.tf", "live {\n  estate = \"adopter\"\n}\n");
    let plan = dir.run(&["plan", "--json"]).json();
    assert_eq!(actions(&plan), ["aws_iam_role.r delete"]);
}

#[test]
fn cli_adopted_count_member_carries_its_slot() {
    let config = r#"
live {
  estate = "adopter"
}

resource "aws_s3_bucket" "b" {
  count  = 2
  bucket = "adopter-${count.index}"
}
"#;
    let dir = Dir::with_config(&config.replace("count  = 2", "count  = 1"));
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.write("main.tf", config);
    let mut cloud: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.cloud_file()).unwrap()).unwrap();
    cloud["resources"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
            { "type": "aws_s3_bucket", "id": "adopter-1", "attributes": { "bucket": "adopter-1" } }
        ));
    dir.write(".liveplan/cloud.json", &cloud.to_string());
    dir.run(&["adopt", "aws_s3_bucket.b[1]"]).expect_code(0);
    let after = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    after.expect_code(0);
    assert_eq!(codes(&after.json()), Vec::<String>::new());
    let cloud = std::fs::read_to_string(dir.cloud_file()).unwrap();
    assert!(cloud.contains("\"tofu-slot\": \"1\""), "{cloud}");
}
