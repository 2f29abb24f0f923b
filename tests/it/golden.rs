//! The golden plan cases: every directory under `fixtures/cases/` planned through the `liveplan` binary.
//!
//! A case holds a configuration (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`, `liveplan.hcl`), a live snapshot (`live.json`), optionally a local record store
//! (`records/`) and the command line (`args`, one argument per line, `plan` when absent; run in the laid-out
//! directory, so that a case with `provider "aws"` blocks names its snapshot as `--sim .liveplan/cloud.json`). The runner copies
//! the case into a temporary directory laid out as the CLI's embedded defaults (`.liveplan/cloud.json`,
//! `.liveplan/records/`), so the case directory itself is never written, and runs the command twice:
//! the text (`plan.txt`) and the `--json` document (`plan.json`) are compared with `expect_file!`
//! (`UPDATE_EXPECT=1 cargo test -p liveplan golden` rewrites them; review the diff line by line). Then the
//! case's hand-written `expect.json` (exit code, summary, the action per address, the ids of each report,
//! the diagnostic codes, the withheld changes) is checked against the JSON document on its own, so that a golden rewritten in
//! haste cannot make a wrong plan pass.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use expect_test::expect_file;
use fixtures::case::{Case, load_cases};
use serde_json::{Value as Json, json};

/// What a case expects, written by hand.
#[derive(Debug)]
struct Expected {
    exit_code: i64,
    doc: Json,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Lays the case out as a configuration directory with the CLI's default sim file and record store.
fn workdir(case: &Case) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in &case.config {
        std::fs::write(tmp.path().join(path.file_name().unwrap()), text).unwrap();
    }
    for entry in std::fs::read_dir(&case.dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".tfvars") || name.ends_with(".tfvars.json") {
            std::fs::copy(&path, tmp.path().join(&name)).unwrap();
        }
    }
    // A case's called modules live beside its configuration, as in a real root module.
    for sub in ["modules", ".terraform"] {
        let from = case.dir.join(sub);
        if from.is_dir() {
            copy_dir(&from, &tmp.path().join(sub));
        }
    }
    let state = tmp.path().join(".liveplan");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::copy(case.live_path(), state.join("cloud.json")).unwrap();
    if let Some(records) = &case.records {
        copy_dir(records, &state.join("records"));
    }
    tmp
}

/// Runs the case's command (without `--json`) plus `extra`, in `dir`; returns stdout and the exit code.
fn run(case: &Case, dir: &Path, extra: &str) -> (String, i32) {
    let mut args: Vec<String> = if case.args.is_empty() {
        vec!["plan".to_owned()]
    } else {
        case.args
            .iter()
            .filter(|a| *a != "--json")
            .cloned()
            .collect()
    };
    args.push(extra.to_owned());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_liveplan"));
    cmd.args(&args)
        .arg("-C")
        .arg(dir)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env_remove("LIVEPLAN_ESTATE");
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("TF_VAR_")) {
        cmd.env_remove(k);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "case {}: unexpected stderr: {}",
        case.name,
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn expected(case: &Case) -> Expected {
    let path = case.dir.join("expect.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("case {}: expect.json is required: {e}", case.name));
    let doc: Json = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("case {}: expect.json does not parse: {e}", case.name));
    Expected {
        exit_code: doc["exit_code"].as_i64().expect("expect.json: exit_code"),
        doc,
    }
}

fn ids(list: &Json) -> Json {
    let mut out: Vec<String> = list
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| o["id"].as_str().unwrap_or_default().to_owned())
        .collect();
    out.sort();
    json!(out)
}

/// The facts `expect.json` states, extracted from the plan document.
fn facts(plan: &Json) -> Json {
    let mut actions = BTreeMap::new();
    for c in plan["resource_changes"].as_array().into_iter().flatten() {
        let mut key = c["address"].as_str().unwrap_or_default().to_owned();
        if let Some(d) = c["deposed"].as_str() {
            key = format!("{key} deposed {d}");
        }
        let mut action = c["action"].as_str().unwrap_or_default().to_owned();
        if let Some(order) = c["replace_order"].as_str() {
            action = format!("{action} {order}");
        }
        actions.insert(key, action);
    }
    let unowned: BTreeMap<String, String> = plan["unowned"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|u| {
            (
                u["id"].as_str().unwrap_or_default().to_owned(),
                u["verdict"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut codes: Vec<String> = plan["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    codes.sort();
    // Each withheld change as its reason, and what it waits on.
    let withheld: BTreeMap<String, String> = plan["withheld"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| {
            let mut reason = w["reason"].as_str().unwrap_or_default().to_owned();
            for on in w["waits_on"].as_array().into_iter().flatten() {
                reason = format!("{reason} {}", on.as_str().unwrap_or_default());
            }
            (w["address"].as_str().unwrap_or_default().to_owned(), reason)
        })
        .collect();
    json!({
        "applicable": plan["applicable"],
        "summary": plan["summary"],
        "actions": actions,
        "foreign": ids(&plan["foreign"]),
        "bind_candidates": ids(&plan["bind_candidates"]),
        "unowned": unowned,
        "owned_undeclared": ids(&plan["owned_undeclared"]),
        "rename_hints": ids(&plan["rename_hints"]),
        "diagnostics": codes,
        "withheld": withheld,
    })
}

fn check_case(case: &Case) {
    let dir = workdir(case);
    let (text, text_code) = run(case, dir.path(), "--no-color");
    let (json_text, json_code) = run(case, dir.path(), "--json");
    expect_file![case.dir.join("plan.txt")].assert_eq(&text);
    expect_file![case.dir.join("plan.json")].assert_eq(&json_text);
    let expected = expected(case);
    assert_eq!(
        i64::from(text_code),
        expected.exit_code,
        "case {}: exit code of the text plan",
        case.name
    );
    assert_eq!(
        i64::from(json_code),
        expected.exit_code,
        "case {}: exit code of the JSON plan",
        case.name
    );
    let plan: Json = serde_json::from_str(&json_text).unwrap();
    let found = facts(&plan);
    for (key, want) in expected.doc.as_object().unwrap() {
        if key == "exit_code" || key == "about" {
            continue;
        }
        assert_eq!(
            &found[key], want,
            "case {}: expect.json's {key:?} does not hold",
            case.name
        );
    }
    let stated: Vec<&String> = expected.doc.as_object().unwrap().keys().collect();
    for key in ["summary", "actions", "diagnostics"] {
        assert!(
            stated.iter().any(|k| *k == key),
            "case {}: expect.json must state {key:?}",
            case.name
        );
    }
    // Planning writes nothing: the sim file and the record store are as the case gave them.
    let cloud = std::fs::read(dir.path().join(".liveplan/cloud.json")).unwrap();
    assert_eq!(
        cloud,
        std::fs::read(case.live_path()).unwrap(),
        "case {}: plan changed the sim file",
        case.name
    );
}

#[test]
fn golden_cases_plan_as_recorded() {
    // The workspace's own copy of the cases, found from this package (not from where `fixtures` was built).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let cases = load_cases(&root).unwrap();
    assert!(
        cases.len() >= 40,
        "at least 40 golden cases, found {}",
        cases.len()
    );
    let mut failed = Vec::new();
    for case in &cases {
        if std::panic::catch_unwind(|| check_case(case)).is_err() {
            failed.push(case.name.clone());
        }
    }
    assert!(failed.is_empty(), "golden cases failed: {failed:?}");
}

/// The golden cases that hold records (none of them names a lineage) plan byte-identically when their
/// simulated cloud names one: a record without lineage is read as it always was.
#[test]
fn golden_cases_records_without_lineage_plan_the_same_for_a_cloud_with_an_id() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let cases: Vec<Case> = load_cases(&root)
        .unwrap()
        .into_iter()
        .filter(|c| c.records.is_some())
        .collect();
    assert!(cases.len() >= 4, "cases with records: {}", cases.len());
    for case in &cases {
        let dir = workdir(case);
        let cloud = dir.path().join(".liveplan/cloud.json");
        let Ok(Json::Object(mut doc)) =
            serde_json::from_str::<Json>(&std::fs::read_to_string(&cloud).unwrap())
        else {
            continue; // a case whose snapshot is broken on purpose
        };
        doc.insert(
            "cloud_id".to_owned(),
            json!("0123456789abcdef0123456789abcdef"),
        );
        std::fs::write(&cloud, serde_json::to_string(&doc).unwrap()).unwrap();
        let (text, _) = run(case, dir.path(), "--no-color");
        let recorded = std::fs::read_to_string(case.dir.join("plan.txt")).unwrap();
        assert_eq!(text, recorded, "case {}", case.name);
    }
}

/// The tags of each object of a simulated cloud's file, by id.
fn live_tags(cloud: &Path) -> BTreeMap<String, Json> {
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(cloud).unwrap()).unwrap();
    doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["tags"].clone()))
        .collect()
}

/// The tag cases converge: applied, each re-plans to `No changes.`, and the objects carry exactly what
/// the rule says (foreign tags kept where nothing manages tags, the default tags merged under the
/// resource's own, the ignored keys kept as they were, the markers always).
#[test]
fn golden_tag_cases_apply_and_then_plan_no_changes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let cases: Vec<Case> = load_cases(&root)
        .unwrap()
        .into_iter()
        .filter(|c| c.name.starts_with("tags-"))
        .collect();
    assert_eq!(cases.len(), 4, "the tag cases");
    let mut tags = BTreeMap::new();
    for case in &cases {
        let dir = workdir(case);
        let mut apply = case.clone();
        apply.args = ["apply", "--sim", ".liveplan/cloud.json"]
            .map(str::to_owned)
            .to_vec();
        let (text, code) = run(&apply, dir.path(), "--auto-approve");
        assert_eq!(code, 0, "case {}: {text}", case.name);
        let (text, code) = run(case, dir.path(), "--no-color");
        assert_eq!(
            (text.as_str(), code),
            (
                "No changes. The live system matches the configuration.\n",
                0
            ),
            "case {}",
            case.name
        );
        tags.insert(
            case.name.clone(),
            live_tags(&dir.path().join(".liveplan/cloud.json")),
        );
    }
    assert_eq!(
        json!(tags),
        json!({
            "tags-default-and-resource": {
                "acme-core-artifacts": {"Environment": "prod", "Name": "artifacts", "Owner": "platform",
                    "tofu-address": "aws_s3_bucket.artifacts", "tofu-estate": "acme-core"},
                "vpc-00000001": {"Environment": "prod", "Name": "core-prod", "Owner": "network",
                    "tofu-address": "aws_vpc.core", "tofu-estate": "acme-core"},
            },
            "tags-default-only": {
                "acme-data-raw": {"Environment": "prod", "Team": "data",
                    "tofu-address": "aws_s3_bucket.raw", "tofu-estate": "acme-data"},
                "subnet-00000001": {"Environment": "prod", "Team": "data",
                    "tofu-address": "aws_subnet.private", "tofu-estate": "acme-data"},
                "vpc-00000001": {"Environment": "prod", "Team": "data",
                    "tofu-address": "aws_vpc.data", "tofu-estate": "acme-data"},
            },
            "tags-ignore-prefix": {
                "subnet-00000001": {"ManagedBy": "terraform", "Name": "eks-nodes",
                    "kubernetes.io/role/internal-elb": "1",
                    "tofu-address": "aws_subnet.nodes", "tofu-estate": "acme-eks"},
                "vpc-00000001": {"LastScanned": "2026-11-30", "ManagedBy": "terraform", "Name": "eks",
                    "kubernetes.io/cluster/eks": "shared",
                    "tofu-address": "aws_vpc.eks", "tofu-estate": "acme-eks"},
            },
            "tags-neither-foreign-tag": {
                "acme-edge-logs": {"Owner": "storage-team", "backup-policy": "daily",
                    "tofu-address": "aws_s3_bucket.logs", "tofu-estate": "acme-edge"},
                "vpc-00000001": {"CostCenter": "1234",
                    "tofu-address": "aws_vpc.edge", "tofu-estate": "acme-edge"},
            },
        })
    );
}
