//! A sentinel secret never leaves the process: not through plan text or JSON, apply output (human and
//! JSON events), the graph (DOT and debug text), the record listing, error messages, the `Debug` repr of
//! a plan, or the log at TRACE level. The secrets: a sensitive variable written into a tag, the value
//! of a `random_id` behind a sensitive output, and an access key's secret (returned once, at create).

use std::sync::Arc;

use liveplan::render::{self, RenderOptions};
use liveplan::{MemoryStore, PlanRequest, SimCloud, SimConfig, SourceFile, Store, VariableInputs};
use serde_json::{Value as Json, json};

use crate::reliability_support::{EstateDir, Run};

const SENTINEL: &str = "s3ntinel-Secret-0a1b2c";
const ROTATED: &str = "r0tated-Secret-9z8y7x";

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
    for args in [
        &["plan"][..],
        &["plan", "--json"],
        &["plan", "--verbose"],
        &["plan", "--json", "--verbose"],
        &["graph"],
        &["graph", "--debug"],
        &["records"],
        &["apply", "--auto-approve"],
        &["apply", "--auto-approve", "--json"],
    ] {
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
    assert!(
        rotated.stdout.contains("(sensitive value)"),
        "{}",
        rotated.stdout
    );
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
    let request = PlanRequest::new(&files, &inputs);
    let plan = liveplan::plan(
        &request,
        cloud.as_ref(),
        Arc::clone(&store),
        &liveplan::CacheScope::new(),
    )
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
        ("priors", format!("{:?}", plan.context.priors)),
        ("declared", format!("{:?}", plan.context.declared)),
        ("whole plan", format!("{plan:?}")),
        ("pretty whole plan", format!("{plan:#?}")),
    ] {
        assert!(
            !shown.contains(SENTINEL),
            "the {what} shows the secret: {}",
            around(&shown, SENTINEL)
        );
    }
    let provider: Arc<dyn liveplan::Provider> = cloud.clone();
    let outcome = liveplan::apply(
        &plan.review().expect("applicable"),
        provider,
        Arc::clone(&store),
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
