//! The quickstart after an apply was killed between writing a create intent and the create call: a
//! young `pending` intent and no object. The create is withheld until the intent's patience ends, and
//! the binary says so: `plan --detailed-exitcode` exits 2 and never prints `No changes.`, `apply` applies
//! everything else and exits 1 with `create-withheld`, and what waits on the withheld create is withheld
//! with it instead of failing at apply.

use serde_json::{Value as Json, json};

use crate::cli::{Dir, actions, codes};

/// Writes the record a crash leaves behind: the `pending` create intent of `address` (of `type_name`,
/// in the estate `quickstart`) written `age` seconds ago, with no object id.
fn interrupted_create(dir: &Dir, type_name: &str, address: &str, age: u64) {
    dir.write_pending_intent("quickstart", type_name, address, age);
}

/// Removes every object of `type_name` from the simulated cloud's file.
fn remove_from_cloud(dir: &Dir, type_name: &str) {
    let path = dir.cloud_file();
    let mut doc: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["resources"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["type"] != json!(type_name));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// The line of the plan text that lists `address` as withheld.
fn withheld_line<'a>(text: &'a str, address: &str) -> Option<&'a str> {
    let mut lines = text
        .lines()
        .skip_while(|l| *l != "Withheld until an interrupted create may be retried:");
    lines.next()?;
    lines
        .take_while(|l| !l.is_empty())
        .find(|l| l.starts_with(&format!("  {address} (")))
}

#[test]
fn withheld_create_makes_plan_exit_2_and_never_says_no_changes() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    // Killed after the bucket's intent was written, before its create call: the bucket never existed.
    remove_from_cloud(&dir, "aws_s3_bucket");
    interrupted_create(&dir, "aws_s3_bucket", "aws_s3_bucket.artifacts", 60);

    let plan = dir.run(&["plan", "--detailed-exitcode", "--no-color"]);
    plan.expect_code(2);
    assert!(!plan.stdout.contains("No changes"), "{}", plan.stdout);
    assert_eq!(
        plan.last_line(),
        "Plan: 0 to add, 0 to change, 0 to destroy, 1 withheld."
    );
    let line = withheld_line(&plan.stdout, "aws_s3_bucket.artifacts").unwrap_or_else(|| {
        panic!(
            "aws_s3_bucket.artifacts is not listed as withheld:\n{}",
            plan.stdout
        )
    });
    assert!(
        line.starts_with(
            "  aws_s3_bucket.artifacts (create): an earlier apply started creating it and did not \
             finish; may be retried after "
        ) && line.ends_with(" UTC"),
        "{line}"
    );

    let doc = dir
        .run(&["plan", "--json", "--detailed-exitcode"])
        .expect_code(2)
        .json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    let withheld = doc["withheld"].as_array().expect("a withheld list");
    assert_eq!(withheld.len(), 1, "{doc:#}");
    assert_eq!(withheld[0]["address"], json!("aws_s3_bucket.artifacts"));
    assert_eq!(withheld[0]["action"], json!("create"));
    assert_eq!(withheld[0]["reason"], json!("interrupted-create"));
    let retry = withheld[0]["retry_after"].as_str().unwrap_or_default();
    assert!(
        retry.len() == 20 && retry.ends_with('Z'),
        "an RFC 3339 UTC time: {retry}"
    );
    assert_eq!(codes(&doc), ["interrupted-create"]);
}

#[test]
fn withheld_create_makes_apply_exit_1_with_create_withheld_after_applying_the_rest() {
    let dir = Dir::quickstart();
    interrupted_create(&dir, "aws_s3_bucket", "aws_s3_bucket.artifacts", 60);

    let applied = dir.run(&["apply", "--auto-approve", "--no-color"]);
    applied.expect_code(1);
    assert!(
        applied.stdout.contains(
            "Error: the create of aws_s3_bucket.artifacts is withheld: an earlier apply started \
             creating it and did not finish [create-withheld]"
        ),
        "{}",
        applied.stdout
    );
    assert!(
        !applied.stdout.contains("Apply complete!"),
        "{}",
        applied.stdout
    );
    assert!(
        applied
            .stdout
            .contains("Apply failed! Resources: 11 added, 0 changed, 0 destroyed."),
        "{}",
        applied.stdout
    );
    // Everything but the bucket was created.
    let live = dir.live_objects();
    assert!(
        !live.iter().any(|o| o.starts_with("aws_s3_bucket ")),
        "{live:?}"
    );
    assert_eq!(
        live.iter().filter(|o| o.starts_with("aws_subnet ")).count(),
        3
    );

    // `--json` says the same as events: the error, and a summary that is not "applied".
    let events = dir.run(&["apply", "--auto-approve", "--json"]);
    events.expect_code(1);
    let events: Vec<Json> = events
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event per line"))
        .collect();
    assert!(
        events.iter().any(|e| e["type"] == json!("diagnostic")
            && e["code"] == json!("create-withheld")
            && e["address"] == json!("aws_s3_bucket.artifacts")),
        "{events:#?}"
    );
    assert_eq!(
        events.last().map(|e| &e["applied"]),
        Some(&json!(false)),
        "{events:#?}"
    );

    // Once the intent is older than its patience, the bucket is created and the estate converges.
    interrupted_create(&dir, "aws_s3_bucket", "aws_s3_bucket.artifacts", 3600);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
}

#[test]
fn withheld_create_withholds_what_waits_on_it_instead_of_failing_it_at_apply() {
    let dir = Dir::quickstart();
    interrupted_create(&dir, "aws_subnet", "aws_subnet.public[0]", 60);

    let doc = dir.run(&["plan", "--json"]).expect_code(0).json();
    let planned = actions(&doc);
    assert!(
        !planned
            .iter()
            .any(|a| a.starts_with("aws_subnet.public[0] ")
                || a.starts_with("aws_route_table_association.public[0] ")),
        "{planned:?}"
    );
    assert!(
        planned.contains(&"aws_route_table_association.public[1] create".to_owned()),
        "{planned:?}"
    );
    let withheld: Vec<(String, String, Json)> = doc["withheld"]
        .as_array()
        .expect("a withheld list")
        .iter()
        .map(|w| {
            (
                w["address"].as_str().unwrap_or_default().to_owned(),
                w["reason"].as_str().unwrap_or_default().to_owned(),
                w["waits_on"].clone(),
            )
        })
        .collect();
    assert_eq!(
        withheld,
        [
            (
                "aws_route_table_association.public[0]".to_owned(),
                "waits-on-withheld".to_owned(),
                json!(["aws_subnet.public[0]"])
            ),
            (
                "aws_subnet.public[0]".to_owned(),
                "interrupted-create".to_owned(),
                json!([])
            ),
        ]
    );
    let text = dir
        .run(&["plan", "--no-color"])
        .expect_code(0)
        .stdout
        .clone();
    let line = withheld_line(&text, "aws_route_table_association.public[0]")
        .unwrap_or_else(|| panic!("the association is not listed as withheld:\n{text}"));
    assert!(
        line.starts_with(
            "  aws_route_table_association.public[0] (create): it waits on aws_subnet.public[0]; may \
             be retried after "
        ),
        "{line}"
    );

    // The apply fails only because of what is withheld: no "still unknown", no failed operation.
    let applied = dir.run(&["apply", "--auto-approve", "--json"]);
    applied.expect_code(1);
    let errors: Vec<(String, String)> = applied
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|e| e["type"] == json!("diagnostic") && e["severity"] == json!("error"))
        .map(|e| {
            (
                e["code"].as_str().unwrap_or_default().to_owned(),
                e["address"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            (
                "create-withheld".to_owned(),
                "aws_route_table_association.public[0]".to_owned()
            ),
            (
                "create-withheld".to_owned(),
                "aws_subnet.public[0]".to_owned()
            ),
        ],
        "{}",
        applied.stdout
    );
}
