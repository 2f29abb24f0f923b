//! Two simulated clouds used from one configuration directory (`--sim a.json`, `--sim b.json`) share its
//! record store: each cloud file gets its id with its first write, every record names it, and a plan
//! against the other cloud refuses those records with `record-lineage` instead of mixing them.

use serde_json::json;

use crate::cli::Dir;
use crate::reliability_support::{EstateDir, Run, actions, codes};

#[test]
fn record_lineage_two_simulated_clouds_in_one_directory_never_mix_their_records() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve", "--sim", "a.json"])
        .expect_code(0);
    let a = std::fs::read_to_string(dir.path().join("a.json")).unwrap();
    assert!(a.contains(r#""cloud_id": ""#), "{a}");
    // Each simulated cloud keeps its records beside its file: the second one starts from none.
    assert!(dir.path().join("a.records").is_dir());
    let plan = dir.run(&["plan", "--json", "--sim", "b.json"]);
    plan.expect_code(0);
    assert!(codes(&plan.json()).is_empty(), "{}", plan.json());

    // One record store named for both clouds: the records of the first are refused for the second.
    let main = std::fs::read_to_string(dir.path().join("main.tf")).unwrap();
    dir.write(
        "main.tf",
        &main.replace(
            "  estate = \"quickstart\"\n",
            "  estate = \"quickstart\"\n  record_store \"local\" {\n    path = \"a.records\"\n  }\n",
        ),
    );
    let plan = dir.run(&["plan", "--json", "--sim", "b.json"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert!(codes(&doc).contains(&"record-lineage".to_owned()), "{doc}");
    // Nothing was written for the second cloud, and the first still reads its own records.
    assert!(!dir.path().join("b.json").exists());
    dir.run(&["plan", "--detailed-exitcode", "--sim", "a.json"])
        .expect_code(0);
}

#[test]
fn record_lineage_two_first_applies_on_a_new_cloud_file_name_one_cloud() {
    // Two estates of one directory applied at once on a cloud file that does not exist yet: each plan
    // reads the records before either apply has given the file its id, so each run's own guess at the id
    // differs. Whichever writes first names the cloud, and both estates' records must name that one.
    let estate = EstateDir::new(
        r#"
resource "aws_vpc" "main" {
  cidr_block = "10.42.0.0/16"
}

resource "aws_subnet" "s" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.42.0.0/16", 8, count.index)
}
"#,
    );
    // Slow listings keep both plans ahead of any write (the fault list makes the file, without an id).
    estate.set_faults(json!([
        { "operation": "ec2:DescribeVpcs", "kind": "throttle", "times": 2 },
    ]));
    let runs: Vec<Run> = ["a", "b"]
        .map(|name| estate.spawn(&["apply", "--auto-approve", "--estate", name]))
        .into_iter()
        .map(|child| Run::from(child.wait_with_output().expect("the apply ends")))
        .collect();
    estate.set_faults(json!([]));
    for run in &runs {
        run.expect_code(0);
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(estate.cloud_file()).unwrap()).unwrap();
    let id = doc["cloud_id"]
        .as_str()
        .expect("the file has its id")
        .to_owned();
    for name in ["a", "b"] {
        let plan = estate
            .run(&["plan", "--json", "--estate", name])
            .expect_code(0)
            .json();
        assert!(codes(&plan).is_empty(), "{name}: {plan:#}");
        assert_eq!(actions(&plan), Vec::<String>::new(), "{name}: {plan:#}");
    }
    // Every record of both estates names the cloud the file keeps.
    let records = estate.record_files();
    assert!(records.len() >= 6, "{records:?}");
    for (key, text) in records {
        assert!(text.contains(&format!("sim cloud {id}")), "{key}: {text}");
    }
}
