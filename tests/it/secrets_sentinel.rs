//! A sentinel secret never leaves the process: not through plan text or JSON, apply output (human and
//! JSON events), the graph (DOT and debug text), the record listing, error messages, the `Debug` repr of
//! a plan, the log at TRACE level, or a file the CLI writes outside the record store (where secrets are
//! kept, never printed) and the simulated cloud's file (the live system, which holds what was applied).
//! The secrets: a sensitive variable written into arguments, a tag, a tag key, a map lookup, a failing
//! function call and an output, rotated once; the value of a `random_id` behind a sensitive output; and
//! an access key's secret (returned once, at create). No command prints a secret: there is no `output`
//! command, the one surface that would be allowed to.

use std::sync::Arc;

use liveplan::render::{self, RenderOptions};
use liveplan::{MemoryStore, SimCloud, SimConfig, SourceFile, Store, VariableInputs};
use serde_json::{Value as Json, json};

use crate::reliability_support::{EstateDir, Run};

const SENTINEL: &str = "s3ntinel-Secret-0a1b2c";
const ROTATED: &str = "r0tated-Secret-9z8y7x";

/// Every command that shows an applied estate without changing it, most verbose forms included.
const LOOKS: [&[&str]; 9] = [
    &["plan"],
    &["plan", "--json"],
    &["plan", "--verbose"],
    &["plan", "--json", "--verbose"],
    &["graph"],
    &["graph", "--debug"],
    &["records"],
    &["state", "list"],
    &["output"],
];

const CONFIG: &str = r#"
live {
  estate = "sec"
}

variable "token" {
  type      = string
  sensitive = true
}

resource "random_id" "suffix" {
  byte_length = 8
}

resource "aws_iam_user" "ci" {
  name = "sec-ci"
}

resource "aws_iam_access_key" "ci" {
  user = aws_iam_user.ci.name
}

resource "aws_s3_bucket" "b" {
  bucket = "sec-bucket"
  tags   = { Token = var.token }
}

output "suffix" {
  value     = random_id.suffix.hex
  sensitive = true
}

output "access_secret" {
  value     = aws_iam_access_key.ci.secret
  sensitive = true
}

output "token" {
  value     = var.token
  sensitive = true
}
"#;

/// The secrets an applied estate holds: the access key's secret and the random id's hex, read from the
/// sim file and the record store (the only places they may be written).
fn minted_secrets(estate: &EstateDir) -> Vec<String> {
    let mut out = vec![String::new(), String::new()];
    for (name, text) in estate.record_files() {
        let Ok(doc) = serde_json::from_str::<Json>(&text) else {
            continue;
        };
        if name.contains("/residue/aws_iam_access_key/") {
            let secret = find_string(&doc, "secret").expect("the residue holds the secret");
            out[0] = secret;
        }
        if name.contains("/records/random_id/") {
            out[1] = find_string(&doc, "hex").expect("the record holds the hex");
        }
    }
    assert!(
        out.iter().all(|s| s.len() >= 16),
        "both minted secrets were found: {out:?}"
    );
    out
}

/// The first string value under key `key` anywhere in `doc`.
fn find_string(doc: &Json, key: &str) -> Option<String> {
    match doc {
        Json::Object(map) => map
            .get(key)
            .and_then(|v| v.as_str().map(str::to_owned))
            .or_else(|| map.values().find_map(|v| find_string(v, key))),
        Json::Array(items) => items.iter().find_map(|v| find_string(v, key)),
        _ => None,
    }
}

/// Asserts that `run`'s standard output holds `text`.
fn assert_shows(run: &Run, text: &str) {
    assert!(run.stdout.contains(text), "{}", run.stdout);
}

/// Asserts that no secret appears in either stream of a run.
fn assert_hidden(what: &str, run: &Run, secrets: &[String]) {
    for secret in secrets {
        assert!(
            !run.stdout.contains(secret.as_str()),
            "{what}: stdout shows {secret}:\n{}",
            run.stdout
        );
        assert!(
            !run.stderr.contains(secret.as_str()),
            "{what}: stderr shows {secret}:\n{}",
            run.stderr
        );
    }
}

fn with_token(args: &[&str], token: &str) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    all.push("--var".into());
    all.push(format!("token={token}"));
    all
}

fn run(estate: &EstateDir, args: &[&str], token: &str, trace: bool) -> Run {
    let mut all = with_token(args, token);
    if trace {
        all.push("--log-level".into());
        all.push("trace".into());
    }
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    estate.run(&refs)
}

#[test]
fn secrets_sentinel_never_shows_in_any_cli_output_or_trace_log() {
    let sentinel = vec![SENTINEL.to_owned()];
    let estate = EstateDir::new(CONFIG);
    for args in [
        &["plan"][..],
        &["plan", "--json"],
        &["plan", "--verbose"],
        &["graph"],
        &["graph", "--debug"],
        &["validate"],
    ] {
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(0);
        assert_hidden(&args.join(" "), &out, &sentinel);
    }
    // A saved plan holds no secret, and neither does what `show` prints of it.
    run(&estate, &["plan", "-out=sentinel.plan"], SENTINEL, true).expect_code(0);
    let file = std::fs::read_to_string(estate.path().join("sentinel.plan")).expect("the plan file");
    assert!(!file.contains(SENTINEL), "the plan file shows the secret");
    for args in [
        &["show", "sentinel.plan"][..],
        &["show", "-json", "sentinel.plan"],
    ] {
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(0);
        assert_hidden(&args.join(" "), &out, &sentinel);
    }
    let plan = run(&estate, &["plan", "--json"], SENTINEL, false).json();
    let bucket = plan["resource_changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["address"] == json!("aws_s3_bucket.b"))
        .expect("the bucket is planned");
    assert_eq!(bucket["after"]["tags"]["Token"], json!("(sensitive)"));

    // Apply with every log line on, and throttled calls so that retries and failed attempts are logged
    // with their spans' fields: the human output and the log hide the tag value.
    estate.set_faults(json!([
        { "operation": "s3:CreateBucket", "kind": "throttle", "times": 2 },
        { "operation": "iam:CreateAccessKey", "kind": "server-error", "times": 1 },
        { "operation": "s3:ListBuckets", "kind": "throttle", "times": 1 },
    ]));
    let applied = run(&estate, &["apply", "--auto-approve"], SENTINEL, true);
    applied.expect_code(0);
    estate.set_faults(json!([]));
    assert!(
        applied
            .stderr
            .contains("retrying after a transient failure"),
        "the log shows the retries:\n{}",
        applied.stderr
    );
    let mut secrets = minted_secrets(&estate);
    let hex = secrets[1].clone();
    secrets.push(SENTINEL.to_owned());
    assert_hidden("apply", &applied, &secrets);

    // Later commands see every secret as applied, and show none of them.
    let applies: [&[&str]; 2] = [
        &["apply", "--auto-approve"],
        &["apply", "--auto-approve", "--json"],
    ];
    for args in LOOKS.into_iter().chain(applies) {
        estate.set_faults(json!([
            { "operation": "s3:ListBuckets", "kind": "throttle", "times": 1 },
            { "operation": "iam:ListAccessKeys", "kind": "server-error", "times": 1 },
        ]));
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(0);
        // A `random_id` is not itself sensitive (as in Terraform): `plan --json --verbose` lists every
        // attribute of the no-op instance; only the sensitive output that carries it is a secret.
        let hidden: Vec<String> = if args.contains(&"--json") && args.contains(&"--verbose") {
            secrets.iter().filter(|s| **s != hex).cloned().collect()
        } else {
            secrets.clone()
        };
        assert_hidden(&args.join(" "), &out, &hidden);
    }
    estate.set_faults(json!([]));

    // A rotated token is an update whose diff hides both the old and the new value.
    secrets.push(ROTATED.to_owned());
    let rotated = run(&estate, &["plan"], ROTATED, true);
    rotated.expect_code(0);
    assert_shows(&rotated, "(sensitive value)");
    assert_hidden("rotated plan", &rotated, &secrets);
    let rotated = run(
        &estate,
        &["apply", "--auto-approve", "--json"],
        ROTATED,
        true,
    );
    rotated.expect_code(0);
    assert_hidden("rotated apply --json", &rotated, &secrets);
}

#[test]
fn secrets_sentinel_never_shows_in_error_messages() {
    let sentinel = vec![SENTINEL.to_owned()];
    // A create that fails while carrying the secret in its tags: the apply-failed error hides it.
    let estate = EstateDir::new(CONFIG);
    estate.set_faults(json!([
        { "operation": "s3:CreateBucket", "kind": "server-error", "times": 99 },
    ]));
    for args in [
        &["apply", "--auto-approve"][..],
        &["apply", "--auto-approve", "--json"],
    ] {
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(1);
        assert!(
            format!("{}{}", out.stdout, out.stderr).contains("apply-failed"),
            "{out:?}"
        );
        assert_hidden(&args.join(" "), &out, &sentinel);
    }
}

/// The text around the first occurrence of `needle`, to say where a secret leaked.
fn around(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or(0);
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(300)
        .map_or(0, |(i, _)| i);
    text[start..(at + needle.len()).min(text.len())].to_owned()
}

#[tokio::test]
async fn secrets_sentinel_never_shows_in_the_debug_repr_of_a_plan_or_its_outcome() {
    let cloud = Arc::new(
        SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default()).expect("a snapshot"),
    );
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let files = [SourceFile::new("main.tf", CONFIG)];
    let mut inputs = VariableInputs::default();
    inputs.cli.push(liveplan::admission::VarInput::Var(format!(
        "token={SENTINEL}"
    )));
    let engine = liveplan::Engine::new(Arc::clone(&cloud) as _, Arc::clone(&store));
    let plan = engine
        .plan(liveplan::Sources::new(&files, &inputs))
        .await
        .expect("the plan runs");
    assert!(
        plan.applicable(),
        "{}",
        render::text(&plan, RenderOptions::default())
    );
    for (what, shown) in [
        ("changes", format!("{:?}", plan.changes)),
        ("pretty changes", format!("{:#?}", plan.changes)),
        ("diagnostics", format!("{:?}", plan.diagnostics)),
        ("priors", format!("{:?}", plan.priors().collect::<Vec<_>>())),
        ("whole plan", format!("{plan:?}")),
        ("pretty whole plan", format!("{plan:#?}")),
    ] {
        assert!(
            !shown.contains(SENTINEL),
            "the {what} shows the secret: {}",
            around(&shown, SENTINEL)
        );
    }
    let outcome = engine
        .apply(
            &plan.review().expect("applicable"),
            liveplan::ApplyConfig::default(),
        )
        .await
        .expect("the apply runs");
    assert!(outcome.succeeded(), "{:?}", outcome.diagnostics);
    let shown = format!("{outcome:?} {outcome:#?}");
    assert!(
        !shown.contains(SENTINEL),
        "the outcome's debug shows the secret: {}",
        around(&shown, SENTINEL)
    );
}

/// The AWS credentials of the environment never reach a log line or the output, even at TRACE level
/// and when every call fails (a dead local endpoint: no account and no emulator needed).
#[cfg(feature = "aws")]
#[test]
fn secrets_sentinel_aws_credentials_are_never_logged() {
    const SECRET_KEY: &str = "cReDsEnTiNeL-SecretAccessKey";
    const SESSION_TOKEN: &str = "sEsSiOn-ToKeN-SeNtInEl";
    let estate = EstateDir::new(
        r#"
live {
  estate = "cred"
}

provider "aws" {
  region = "us-east-1"
}

resource "aws_s3_bucket" "b" {
  bucket = "cred-bucket"
}
"#,
    );
    for args in [
        &["plan", "--log-level", "trace"][..],
        &["apply", "--auto-approve", "--log-level", "trace"],
    ] {
        let out = Run::from(
            estate
                .command(args)
                .env("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
                .env("AWS_ACCESS_KEY_ID", "AKIAEXAMPLESENTINEL1")
                .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
                .env("AWS_SESSION_TOKEN", SESSION_TOKEN)
                .env("AWS_REGION", "us-east-1")
                .env("AWS_EC2_METADATA_DISABLED", "true")
                .output()
                .expect("the binary runs"),
        );
        out.expect_code(1);
        assert!(
            out.stdout.contains("discovery-incomplete"),
            "the dead endpoint is reported:\n{}",
            out.stdout
        );
        assert!(!out.stderr.is_empty(), "the trace log is on");
        assert_hidden(
            &args.join(" "),
            &out,
            &[SECRET_KEY.to_owned(), SESSION_TOKEN.to_owned()],
        );
    }
}

/// Everything a sensitive variable can be used in that applies: arguments (a template and a JSON
/// document), a tag, a tag key, a map lookup whose key is the secret, and an output.
const EVERYWHERE: &str = r#"
live {
  estate = "rot"
}

variable "token" {
  type      = string
  sensitive = true
}

locals {
  by_token = { (var.token) = "found", other = "x" }
  plain    = { a = "b" }
}

resource "aws_iam_role" "r" {
  name               = "rot-role"
  assume_role_policy = jsonencode({ Version = "2012-10-17", Statement = [], Sid = var.token })
  description        = "token ${var.token}"
}

resource "aws_s3_bucket" "b" {
  bucket = "rot-bucket"
  tags   = { Token = var.token }
}

resource "aws_vpc" "v" {
  cidr_block = "10.0.0.0/16"
  tags       = { (var.token) = "key", Name = "rot" }
}

resource "terraform_data" "lookups" {
  input = [local.by_token[var.token], lookup(local.plain, var.token, "default")]
}

output "token" {
  value     = "${var.token}-out"
  sensitive = true
}
"#;

/// Configurations that fail on a sensitive value: before anything is read (a function call, a missing
/// map key, a value outside its allowed set) and at apply (a provider that quotes the argument back).
const FAILS_AT_PLAN: &str = r#"
live {
  estate = "bad"
}

variable "token" {
  type      = string
  sensitive = true
}

locals {
  plain = { a = "b" }
}

resource "aws_vpc" "v" {
  cidr_block = cidrsubnet(var.token, 8, 1)
}

resource "terraform_data" "missing" {
  input = local.plain[var.token]
}

resource "aws_s3_bucket_versioning" "v" {
  bucket = "bad-bucket"
  versioning_configuration {
    status = var.token
  }
}
"#;

const FAILS_AT_APPLY: &str = r#"
live {
  estate = "refused"
}

variable "token" {
  type      = string
  sensitive = true
}

resource "aws_vpc" "v" {
  cidr_block = var.token
}

resource "aws_iam_role" "r" {
  name               = "refused-role"
  assume_role_policy = var.token
}
"#;

/// Every file under the estate directory but the configuration, the record store and the simulated
/// cloud's file: none may hold a secret.
fn assert_no_file_holds(estate: &EstateDir, secrets: &[String]) {
    let root = estate.path();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the directory reads") {
            let path = entry.expect("a directory entry").path();
            let rel = path.strip_prefix(root).expect("under the estate");
            if rel.starts_with(".liveplan/records")
                || rel == std::path::Path::new(".liveplan/cloud.json")
            {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).expect("readable")).into_owned();
            for secret in secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{} holds {secret}",
                    rel.display()
                );
            }
        }
    }
}

/// The acceptance test of secrets: the sentinel in every use above, applied, then rotated and applied
/// again, shows in no output of any command at the most verbose log level, in no file the CLI writes
/// outside the record store, and neither does the rotated value.
#[test]
fn secrets_sentinel_a_rotated_secret_never_shows_wherever_it_is_used() {
    let secrets = vec![SENTINEL.to_owned(), ROTATED.to_owned()];
    let estate = EstateDir::new(EVERYWHERE);
    let commands: Vec<&[&str]> = [&["validate"][..]]
        .into_iter()
        .chain(LOOKS)
        .chain([
            &["apply", "--auto-approve"][..],
            &["plan", "--json", "--verbose"],
            &["apply", "--auto-approve", "--json"],
        ])
        .collect();
    for token in [SENTINEL, ROTATED] {
        for &args in &commands {
            let out = run(&estate, args, token, true);
            out.expect_code(0);
            assert_hidden(&format!("{} ({token})", args.join(" ")), &out, &secrets);
        }
        let plan = run(&estate, &["plan", "--detailed-exitcode"], token, false);
        plan.expect_code(0);
        assert_no_file_holds(&estate, &secrets);
    }
    // The rotation was an update of every use, masked on both sides; the first apply said so too.
    let estate = EstateDir::new(EVERYWHERE);
    run(&estate, &["apply", "--auto-approve"], SENTINEL, false).expect_code(0);
    let rotated = run(&estate, &["plan"], ROTATED, true);
    rotated.expect_code(0);
    for line in [
        "      ~ assume_role_policy    = (sensitive value) -> (sensitive value)",
        "      ~ description           = (sensitive value) -> (sensitive value)",
        "      ~ tags                 = (sensitive value) -> (sensitive value)",
    ] {
        assert!(
            rotated.stdout.lines().any(|l| l == line),
            "{line:?} in:\n{}",
            rotated.stdout
        );
    }
    assert_hidden("rotated plan", &rotated, &secrets);
    let applied = run(&estate, &["apply", "--auto-approve"], ROTATED, true);
    applied.expect_code(0);
    assert_shows(&applied, "token = (sensitive value)");
    assert_hidden("rotated apply", &applied, &secrets);
}

/// Errors that meet the sentinel (a function call, a missing map key, a value outside its allowed set,
/// a provider that quotes its argument back) say `(sensitive)` or leave the provider's message out, in
/// every command, at the most verbose log level.
#[test]
fn secrets_sentinel_never_shows_in_errors_of_functions_keys_or_the_provider() {
    let sentinel = vec![SENTINEL.to_owned()];
    let estate = EstateDir::new(FAILS_AT_PLAN);
    for args in [
        &["validate"][..],
        &["plan"],
        &["plan", "--json"],
        &["graph"],
        &["apply", "--auto-approve"],
        &["apply", "--auto-approve", "--json"],
    ] {
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(1);
        let both = format!("{}{}", out.stdout, out.stderr);
        for shown in [
            "cidrsubnet() cannot use its (sensitive) arguments",
            "the map has no key (sensitive)",
            "is (sensitive); expected one of Enabled, Suspended",
        ] {
            assert!(
                both.contains(shown),
                "{}: {shown:?} in:\n{both}",
                args.join(" ")
            );
        }
        assert_hidden(&args.join(" "), &out, &sentinel);
    }
    let estate = EstateDir::new(FAILS_AT_APPLY);
    for args in [
        &["apply", "--auto-approve"][..],
        &["apply", "--auto-approve", "--json"],
    ] {
        let out = run(&estate, args, SENTINEL, true);
        out.expect_code(1);
        assert_shows(&out, "the provider's message is not shown");
        assert_hidden(&args.join(" "), &out, &sentinel);
    }
    assert_no_file_holds(&estate, &sentinel);
}
