//! `liveplan mv` and `liveplan adopt` against an apply of the same estate (reliability findings F4 and
//! F5): both refuse while an apply is creating the address they would take, and `adopt --release` is the
//! way out of a marker collision left behind, refusing every object it must not release.

use serde_json::Value as Json;

use crate::cli::{Dir, codes};

const GATEWAY: &str = r#"
live {
  estate = "claims"
}

resource "aws_vpc" "main" {
  cidr_block = "10.7.0.0/16"
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
}
"#;

/// The gateway estate applied, then its gateway block renamed from `gw` to `main`.
fn renamed_gateway() -> Dir {
    let dir = Dir::with_config(GATEWAY);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.write("main.tf", &GATEWAY.replace("\"gw\"", "\"main\""));
    dir
}

/// The text of every file under `.liveplan` (the simulated cloud and the records), by path; the sim
/// file's lock, which any command may leave, is not part of the estate.
fn estate_files(dir: &Dir) -> Vec<(String, String)> {
    fn walk(path: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(path).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_none_or(|e| e != "lock") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&dir.path().join(".liveplan"), &mut out);
    out.sort();
    out
}

/// Runs `args` with `--json`, asserts exit 1 with the one diagnostic `code` and nothing changed in the
/// cloud or the records; gives the diagnostic.
fn refused(dir: &Dir, args: &[&str], code: &str) -> Json {
    let before = estate_files(dir);
    let mut with_json = vec!["--json"];
    with_json.extend_from_slice(args);
    let run = dir.run(&with_json);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), [code], "{doc}");
    assert_eq!(estate_files(dir), before, "a refusal changed the estate");
    doc["diagnostics"][0].clone()
}

#[test]
fn cli_mv_refuses_while_an_apply_is_creating_the_new_address() {
    let dir = renamed_gateway();
    // The apply that plans "create aws_internet_gateway.main" has written its create intent.
    dir.write_pending_intent(
        "claims",
        "aws_internet_gateway",
        "aws_internet_gateway.main",
        5,
    );
    let d = refused(
        &dir,
        &["mv", "aws_internet_gateway.gw", "aws_internet_gateway.main"],
        "mv-refused",
    );
    let summary = d["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(
            "an apply is creating aws_internet_gateway.main: its create intent is pending since "
        ),
        "{summary}"
    );
    let detail = d["detail"].as_str().unwrap();
    assert!(
        detail.contains("would leave two objects claiming it")
            && detail.ends_with("nothing was changed"),
        "{detail}"
    );
}

#[test]
fn cli_mv_takes_over_the_intent_of_an_apply_cut_off_long_ago() {
    let dir = renamed_gateway();
    // An apply killed eleven minutes ago, before its create call: no apply is creating the address.
    dir.write_pending_intent(
        "claims",
        "aws_internet_gateway",
        "aws_internet_gateway.main",
        660,
    );
    dir.run(&["mv", "aws_internet_gateway.gw", "aws_internet_gateway.main"])
        .expect_code(0);
    let plan = dir.run(&["plan", "--detailed-exitcode"]);
    plan.expect_code(0);
    assert_eq!(
        plan.stdout,
        "No changes. The live system matches the configuration.\n"
    );
}

const NETWORK: &str = r#"
live {
  estate = "claims"
}

resource "aws_vpc" "main" {
  cidr_block = "10.7.0.0/16"
}

resource "aws_s3_bucket" "data" {
  bucket = "claims-data"
}
"#;

const UNOWNED: &str = r#"{ "resources": [
  { "type": "aws_vpc", "id": "vpc-00000005", "attributes": { "cidr_block": "10.7.0.0/16" },
    "tags": { "Name": "hand-made" } },
  { "type": "aws_s3_bucket", "id": "claims-data", "tags": { "Owner": "ops" } }
] }"#;

#[test]
fn cli_adopt_refuses_while_an_apply_is_creating_the_address() {
    let dir = Dir::with_config(NETWORK);
    dir.write(".liveplan/cloud.json", UNOWNED);
    dir.write_pending_intent("claims", "aws_vpc", "aws_vpc.main", 5);
    dir.write_pending_intent("claims", "aws_s3_bucket", "aws_s3_bucket.data", 5);
    // A bind candidate (the plan offers none while the create is pending) and a client-named identity.
    for (args, address) in [
        (
            &["adopt", "aws_vpc.main", "--id", "vpc-00000005"][..],
            "aws_vpc.main",
        ),
        (&["adopt", "aws_s3_bucket.data"][..], "aws_s3_bucket.data"),
    ] {
        let d = refused(&dir, args, "adopt-refused");
        let summary = d["summary"].as_str().unwrap();
        assert!(
            summary.starts_with(&format!(
                "an apply is creating {address}: its create intent is pending since "
            )),
            "{summary}"
        );
    }
}

const COLLISION: &str = r#"
live {
  estate = "claims"
}

resource "aws_vpc" "main" {
  cidr_block = "10.7.0.0/16"
}
"#;

/// Two VPCs claiming `aws_vpc.main`, as a rename or an adoption racing an apply left them before the
/// claim: the apply's own (`vpc-00000002`, named by the create intent it marked done) and the other.
fn collision() -> Dir {
    let dir = Dir::with_config(COLLISION);
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [
  { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.7.0.0/16" },
    "tags": { "Name": "hand-made", "tofu-estate": "claims", "tofu-address": "aws_vpc.main" } },
  { "type": "aws_vpc", "id": "vpc-00000002", "attributes": { "cidr_block": "10.7.0.0/16" },
    "tags": { "tofu-estate": "claims", "tofu-address": "aws_vpc.main" } }
] }"#,
    );
    let key = projection::b64::encode(b"aws_vpc.main");
    dir.write(
        &format!(".liveplan/records/claims/intent/aws_vpc/{key}.rec"),
        r#"{"format":"liveplan-record-v1","kind":"intent","state":"done","client_token":"00000000000000000000000000000001","time":1700000000,"id":"vpc-00000002"}"#,
    );
    dir
}

/// The tags of the live object `id`, as the sim file holds them.
fn tags_of(dir: &Dir, id: &str) -> Json {
    let doc: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.cloud_file()).unwrap()).unwrap();
    doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .map(|r| r["tags"].clone())
        .unwrap_or_else(|| panic!("{id} is not live"))
}

#[test]
fn cli_adopt_release_resolves_a_marker_collision_and_the_next_plan_binds_the_other() {
    let dir = collision();
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    assert_eq!(codes(&plan.json()), ["marker-collision"]);

    let run = dir.run(&["adopt", "aws_vpc.main", "--release", "vpc-00000001"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout.trim_end(),
        "Released vpc-00000001 from aws_vpc.main: it no longer carries this estate's tags, and the \
         next plan lists it as a foreign object."
    );
    // Only the markers went: the owner's own tag stays.
    assert_eq!(
        tags_of(&dir, "vpc-00000001"),
        serde_json::json!({ "Name": "hand-made" })
    );

    let after = dir.run(&["plan", "--json", "--detailed-exitcode"]);
    after.expect_code(0);
    let doc = after.json();
    assert_eq!(codes(&doc), Vec::<String>::new());
    assert_eq!(doc["resource_changes"], serde_json::json!([]));
    assert_eq!(doc["foreign"][0]["id"], "vpc-00000001");
    assert_eq!(
        dir.live_objects(),
        ["aws_vpc vpc-00000001", "aws_vpc vpc-00000002"]
    );
}

#[test]
fn cli_adopt_release_refuses_the_object_a_record_names() {
    let dir = collision();
    let d = refused(
        &dir,
        &["adopt", "aws_vpc.main", "--release", "vpc-00000002"],
        "adopt-refused",
    );
    let key = projection::b64::encode(b"aws_vpc.main");
    assert_eq!(
        d["summary"],
        format!("the record claims/intent/aws_vpc/{key} names vpc-00000002")
    );
    let detail = d["detail"].as_str().unwrap();
    assert!(detail.contains("release vpc-00000001 instead"), "{detail}");
}

#[test]
fn cli_adopt_release_refuses_an_address_without_a_collision() {
    let dir = Dir::with_config(COLLISION);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let d = refused(
        &dir,
        &["adopt", "aws_vpc.main", "--release", "vpc-00000001"],
        "adopt-refused",
    );
    assert_eq!(
        d["summary"],
        "vpc-00000001 is the only live object carrying the address: there is no collision to resolve"
    );
}

#[test]
fn cli_adopt_release_refuses_an_object_outside_the_collision() {
    let dir = collision();
    let mut cloud: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.cloud_file()).unwrap()).unwrap();
    cloud["resources"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
            { "type": "aws_vpc", "id": "vpc-00000003", "attributes": { "cidr_block": "10.9.0.0/16" },
              "tags": { "tofu-estate": "other", "tofu-address": "aws_vpc.main" } }
        ));
    dir.write(".liveplan/cloud.json", &cloud.to_string());
    // Another estate's object carrying the same address, and an id nothing carries.
    for id in ["vpc-00000003", "vpc-0000ffff"] {
        let d = refused(
            &dir,
            &["adopt", "aws_vpc.main", "--release", id],
            "adopt-refused",
        );
        assert_eq!(
            d["summary"],
            format!("{id} does not carry this estate's marker for the address")
        );
    }
}
