//! Count slots through the binary on the file-backed simulated cloud: a malformed `tofu-slot` is kept,
//! never destroyed; a slot high-water mark left behind is repaired, and no slot is minted twice; a
//! replace cut off between its delete and its create re-indexes nothing.

use serde_json::{Value as Json, json};

use crate::reliability_support::EstateDir;

/// Adds `object` to the resources of the sim file.
fn add_to_cloud(dir: &EstateDir, object: Json) {
    let path = dir.cloud_file();
    let mut doc: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["resources"].as_array_mut().unwrap().push(object);
    std::fs::write(&path, doc.to_string()).unwrap();
}

/// The `code ids` of each diagnostic of a JSON plan.
fn diagnostics(plan: &Json) -> Vec<String> {
    plan["diagnostics"]
        .as_array()
        .expect("a diagnostic list")
        .iter()
        .map(|d| format!("{} {}", d["code"].as_str().unwrap_or("?"), d["ids"]))
        .collect()
}

#[test]
fn reliability_slots_a_malformed_slot_in_a_client_named_count_set_is_kept_never_destroyed() {
    let dir = EstateDir::new(
        "live {\n  estate = \"lg\"\n}\nresource \"aws_cloudwatch_log_group\" \"g\" {\n  count = 2\n  \
         name  = \"/lg/g-${count.index}\"\n}\n",
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    add_to_cloud(
        &dir,
        json!({
            "type": "aws_cloudwatch_log_group",
            "id": "/lg/other",
            "attributes": { "name": "/lg/other" },
            "tags": {
                "tofu-estate": "lg",
                "tofu-address": "aws_cloudwatch_log_group.g:5",
                "tofu-slot": "007"
            }
        }),
    );
    let plan = dir.run(&["plan", "--json"]).expect_code(1).json();
    assert_eq!(
        diagnostics(&plan),
        [r#"malformed-slot ["/lg/other"]"#],
        "{plan:#}"
    );
    let destroys: Vec<&Json> = plan["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] != json!("no-op"))
        .collect();
    assert!(destroys.is_empty(), "{destroys:?}");
    // The apply refuses the plan, and the object is still there.
    dir.run(&["apply", "--auto-approve"]).expect_code(1);
    assert_eq!(dir.count_of("aws_cloudwatch_log_group"), 3);
}

/// The quickstart's configuration in a directory of its own.
fn quickstart() -> EstateDir {
    let read = |name: &str| {
        let path = format!("{}/examples/quickstart/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).expect("the quickstart's files")
    };
    let dir = EstateDir::new(&read("main.tf"));
    for name in ["variables.tf", "outputs.tf"] {
        dir.write(name, &read(name));
    }
    dir
}

/// The `tofu-slot` of every live object of `type_name`, sorted.
fn live_slots(dir: &EstateDir, type_name: &str) -> Vec<u64> {
    let doc: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.cloud_file()).unwrap()).unwrap();
    let mut slots: Vec<u64> = doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == json!(type_name))
        .filter_map(|r| r["tags"]["tofu-slot"].as_str()?.parse().ok())
        .collect();
    slots.sort_unstable();
    slots
}

const SUBNET_SLOTS: &str = ".liveplan/records/quickstart/slots/YXdzX3N1Ym5ldC5wdWJsaWM.rec";

#[test]
fn reliability_slots_a_slot_mark_left_behind_is_repaired_and_no_slot_is_minted_twice() {
    let dir = quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.run(&["apply", "--auto-approve", "--var", "subnet_count=5"])
        .expect_code(0);
    // What a run cut off before raising the mark leaves: slots 0 to 4 live, the mark at 2.
    dir.write(
        SUBNET_SLOTS,
        r#"{"format":"liveplan-record-v1","kind":"slots","highest":2}"#,
    );
    dir.run(&["apply", "--auto-approve", "--var", "subnet_count=5"])
        .expect_code(0);
    let record = std::fs::read_to_string(dir.path().join(SUBNET_SLOTS)).unwrap();
    assert!(record.contains(r#""highest":4"#), "{record}");
    dir.run(&["apply", "--auto-approve", "--var", "subnet_count=3"])
        .expect_code(0);
    dir.run(&["apply", "--auto-approve", "--var", "subnet_count=5"])
        .expect_code(0);
    assert_eq!(live_slots(&dir, "aws_subnet"), [0, 1, 2, 5, 6]);
}

const GAP: &str = r#"live {
  estate = "gap"
}
variable "first" {
  type    = number
  default = 0
}
resource "aws_vpc" "main" {
  cidr_block = "10.40.0.0/16"
}
resource "aws_subnet" "s" {
  count      = 4
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.40.0.0/16", 8, count.index == 0 ? var.first : count.index)
}
"#;

#[test]
fn reliability_slots_a_replace_whose_create_fails_after_the_delete_creates_only_the_missing_member()
{
    let dir = EstateDir::new(GAP);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.set_faults(json!([{ "operation": "ec2:CreateSubnet", "kind": "failure", "times": 1 }]));
    let failed = dir.run(&["apply", "--auto-approve", "--no-color", "--var", "first=9"]);
    failed.expect_code(1);
    assert!(
        failed.stdout.contains("1 destroyed"),
        "the old s[0] was destroyed: {}",
        failed.stdout
    );
    dir.set_faults(json!([]));
    let plan = dir
        .run(&["plan", "--json", "--var", "first=9"])
        .expect_code(0)
        .json();
    assert_eq!(
        crate::reliability_support::actions(&plan),
        ["create aws_subnet.s[0]"],
        "only the missing member, none shifted: {plan:#}"
    );
    dir.run(&["apply", "--auto-approve", "--var", "first=9"])
        .expect_code(0);
    dir.run(&["plan", "--detailed-exitcode", "--var", "first=9"])
        .expect_code(0);
    assert_eq!(live_slots(&dir, "aws_subnet"), [0, 1, 2, 3]);
}
