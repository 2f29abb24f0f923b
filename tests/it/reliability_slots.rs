//! Count slots through the binary on the file-backed simulated cloud: a malformed `tofu-slot` is kept,
//! never destroyed.

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
