//! The planner's shapes on the simulated cloud, one case directory each under `engine/tests/shapes/`.
//!
//! A case holds its configuration (`main.tf`), its live snapshot (`live.json`) and what the plan must be:
//! the text (`plan.txt`), the JSON document (`plan.json`) and the execution graph's debug text
//! (`graph.txt`), each compared with `expect_file!` (`UPDATE_EXPECT=1 cargo test -p engine plan_shapes`
//! rewrites them; review the diff line by line). A case that is also a golden case of the CLI under
//! `fixtures/cases/` reads its configuration, snapshot, text and JSON from there, so that the library's
//! rendering and the binary's output are held to the same bytes, and keeps only its graph here.

use std::path::{Path, PathBuf};

use engine::render::RenderOptions;
use expect_test::{ExpectFile, expect_file};

use crate::support::{Bench, json, text};

/// Where one case's inputs and expected outputs are.
struct Shape {
    config: PathBuf,
    live: PathBuf,
    text: PathBuf,
    json: PathBuf,
    graph: PathBuf,
}

impl Shape {
    /// A case whose files are all in `engine/tests/shapes/<name>/`.
    fn local(name: &str) -> Shape {
        let dir = shapes_dir().join(name);
        Shape {
            config: dir.join("main.tf"),
            live: dir.join("live.json"),
            text: dir.join("plan.txt"),
            json: dir.join("plan.json"),
            graph: dir.join("graph.txt"),
        }
    }

    /// A golden case of `fixtures/cases/<name>/` (planned with no arguments), with its graph in
    /// `engine/tests/shapes/<name>/`.
    fn golden(name: &str) -> Shape {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/cases")
            .join(name);
        assert!(
            !dir.join("args").exists(),
            "case {name}: the library renders the plain `plan`, so the golden case must take no arguments"
        );
        Shape {
            config: dir.join("main.tf"),
            live: dir.join("live.json"),
            text: dir.join("plan.txt"),
            json: dir.join("plan.json"),
            graph: shapes_dir().join(name).join("graph.txt"),
        }
    }
}

fn shapes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shapes")
}

/// The text of a case's input file.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The snapshot of an expected output. Outside `UPDATE_EXPECT` the file must exist: `expect_file!` reads
/// a missing file as empty, and a misspelt case name would then pass against an empty graph.
fn expected(path: &Path) -> ExpectFile {
    if std::env::var_os("UPDATE_EXPECT").is_none() {
        assert!(path.is_file(), "{}: no such case file", path.display());
    }
    expect_file![path]
}

/// Plans the case's configuration against its snapshot and compares the text, the JSON and the graph.
async fn check(shape: &Shape) {
    let config = read(&shape.config);
    let bench = Bench::new(&read(&shape.live));
    let plan = bench.plan(&config).await;
    expected(&shape.text).assert_eq(&text(&plan));
    expected(&shape.json).assert_eq(&json(&plan));
    let graph = engine::graph::build(&plan).expect("the graph is acyclic");
    expected(&shape.graph).assert_eq(&graph.debug_repr());
    // A marshalled graph unmarshals to the same graph (unknown planned values included).
    let back = engine::graph::EngineGraph::unmarshal(&graph.marshal()).expect("it unmarshals");
    assert_eq!(back.debug_repr(), graph.debug_repr());
    // Rendering is deterministic: a second plan of the same inputs gives the same bytes.
    let again = bench.plan(&config).await;
    assert_eq!(text(&again), text(&plan));
}

/// Checks the case `engine/tests/shapes/<name>/`.
async fn check_case(name: &str) {
    check(&Shape::local(name)).await;
}

#[tokio::test]
async fn network_converged() {
    check(&Shape::golden("network-converged")).await;
}

#[tokio::test]
async fn create_with_markers() {
    check_case("create-with-markers").await;
}

#[tokio::test]
async fn drift_is_one_update_in_place() {
    check_case("drift-is-one-update-in-place").await;
}

#[tokio::test]
async fn force_new_change_replaces_destroy_first() {
    check_case("force-new-change-replaces-destroy-first").await;
}

#[tokio::test]
async fn create_before_destroy_replace() {
    check_case("create-before-destroy-replace").await;
}

#[tokio::test]
async fn undeclared_and_dependents_are_deleted_in_order() {
    check_case("undeclared-and-dependents-are-deleted-in-order").await;
}

#[tokio::test]
async fn count_surplus_destroys_the_highest_slot() {
    check_case("count-surplus-destroys-the-highest-slot").await;
}

#[tokio::test]
async fn count_growth_mints_slots_above_the_high_water_mark() {
    check_case("count-growth-mints-slots-above-the-high-water-mark").await;
}

#[tokio::test]
async fn unowned_bucket_blocks_its_instance() {
    check_case("unowned-bucket-blocks-its-instance").await;
}

#[tokio::test]
async fn marker_repairs_are_tags_only_updates() {
    check_case("marker-repairs-are-tags-only-updates").await;
}

#[tokio::test]
async fn bind_candidate_is_offered_and_create_still_planned() {
    check_case("bind-candidate-is-offered-and-create-still-planned").await;
}

#[tokio::test]
async fn prevent_destroy_makes_the_plan_not_applicable() {
    check_case("prevent-destroy-makes-the-plan-not-applicable").await;
}

#[tokio::test]
async fn renamed_block_is_a_rename_hint_not_a_delete() {
    check_case("renamed-block-is-a-rename-hint-not-a-delete").await;
}

#[tokio::test]
async fn for_each_keys_and_ignore_changes() {
    check_case("for-each-keys-and-ignore-changes").await;
}

/// The verbose text lists the unchanged instance; its `plan.txt` is the verbose rendering.
#[tokio::test]
async fn verbose_lists_no_ops() {
    let shape = Shape::local("verbose-lists-no-ops");
    let bench = Bench::new(&read(&shape.live));
    let plan = bench.plan(&read(&shape.config)).await;
    let options = RenderOptions { verbose: true };
    expected(&shape.text).assert_eq(&engine::render::text(&plan, options));
    let doc: serde_json::Value =
        serde_json::from_str(&engine::render::json(&plan, options)).expect("JSON");
    assert_eq!(doc["resource_changes"][0]["action"], "no-op");
    assert_eq!(doc["resource_changes"][0]["id"], "vpc-00000001");
}

#[tokio::test]
async fn count_instances_are_listed_in_index_order_as_in_terraform() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"
live {
  estate = "acme"
}

resource "aws_vpc" "s" {
  count      = 12
  cidr_block = "10.${count.index}.0.0/16"
}
"#,
        )
        .await;
    let headings: Vec<String> = text(&plan)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("# "))
        .map(|l| l.trim_end_matches(" will be created").to_owned())
        .collect();
    let expected: Vec<String> = (0..12).map(|i| format!("aws_vpc.s[{i}]")).collect();
    assert_eq!(headings, expected);
    let json: serde_json::Value = serde_json::from_str(&json(&plan)).unwrap();
    let addresses: Vec<&str> = json["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["address"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, expected);
}
