//! Two simulated clouds used from one configuration directory (`--sim a.json`, `--sim b.json`) share its
//! record store: each cloud file gets its id with its first write, every record names it, and a plan
//! against the other cloud refuses those records with `record-lineage` instead of mixing them.

use crate::cli::{Dir, codes};

#[test]
fn record_lineage_two_simulated_clouds_in_one_directory_never_mix_their_records() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve", "--sim", "a.json"])
        .expect_code(0);
    let a = std::fs::read_to_string(dir.path().join("a.json")).unwrap();
    assert!(a.contains(r#""cloud_id": ""#), "{a}");

    let plan = dir.run(&["plan", "--json", "--sim", "b.json"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert!(codes(&doc).contains(&"record-lineage".to_owned()), "{doc}");
    // Nothing was written for the second cloud, and the first still reads its own records.
    assert!(!dir.path().join("b.json").exists());
    dir.run(&["plan", "--detailed-exitcode", "--sim", "a.json"])
        .expect_code(0);
}
