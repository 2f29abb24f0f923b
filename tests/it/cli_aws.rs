//! The `liveplan` binary against the local AWS emulator (started by scripts/test, which sets the standard
//! AWS SDK variables): `provider "aws"` selects the real provider and `record_store "s3"` the S3 store.
//! Without the emulator these tests fail and say to use scripts/test; they never skip.

use std::time::{SystemTime, UNIX_EPOCH};

use staterecord::testkit::emulator::S3Emulator;

use crate::cli::{Dir, actions};

/// The emulator and a name no other test or process uses.
fn emulator_and_name(hint: &str) -> (S3Emulator, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let emulator = runtime
        .block_on(S3Emulator::from_env())
        .expect("the AWS emulator is required: run the tests through scripts/test");
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    (
        emulator,
        format!("lp-{hint}-{}-{nanos:08x}", std::process::id()),
    )
}

#[test]
fn cli_aws_provider_applies_a_bucket_and_converges() {
    let (_emulator, name) = emulator_and_name("cli");
    let dir = Dir::with_config(&format!(
        r#"
live {{
  estate = "{name}"
}}

provider "aws" {{}}

resource "aws_s3_bucket" "data" {{
  bucket = "{name}"
  tags   = {{ Team = "cli" }}
}}

resource "aws_s3_bucket_versioning" "data" {{
  bucket = aws_s3_bucket.data.bucket
  versioning_configuration {{
    status = "Enabled"
  }}
}}
"#
    ));
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    assert_eq!(
        actions(&plan.json()),
        [
            "aws_s3_bucket.data create",
            "aws_s3_bucket_versioning.data create"
        ]
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert!(
        !dir.cloud_file().exists(),
        "the simulated cloud is not used"
    );
    let again = dir.run(&["plan", "--detailed-exitcode"]);
    again.expect_code(0);
    assert_eq!(
        again.stdout,
        "No changes. The live system matches the configuration.\n"
    );
}

#[test]
fn cli_aws_s3_record_store_keeps_the_records() {
    let (emulator, name) = emulator_and_name("rec");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bucket = runtime
        .block_on(emulator.fresh_bucket("lp-records"))
        .unwrap();
    let dir = Dir::with_config(&format!(
        r#"
live {{
  estate = "{name}"
  record_store "s3" {{
    bucket         = "{bucket}"
    key_prefix     = "teams/net"
    allow_insecure = ["versioning", "lifecycle", "public_access_block"]
  }}
}}

resource "random_id" "suffix" {{
  byte_length = 4
}}
"#
    ));
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert!(
        !dir.path().join(".liveplan/records").exists(),
        "the local store is not used"
    );
    let records = dir.run(&["records", "--json"]);
    records.expect_code(0);
    let keys: Vec<String> = records.json()["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        keys.iter()
            .any(|k| k.starts_with(&format!("teams/net/{name}/records/random_id/"))),
        "{keys:?}"
    );
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    // Every record object carries the estate's tag.
    for key in &keys {
        let tagging = runtime
            .block_on(
                emulator
                    .client
                    .get_object_tagging()
                    .bucket(&bucket)
                    .key(key)
                    .send(),
            )
            .unwrap();
        let tags: Vec<(&str, &str)> = tagging
            .tag_set()
            .iter()
            .map(|t| (t.key(), t.value()))
            .collect();
        assert_eq!(tags, [("tofu-estate", name.as_str())], "{key}");
    }

    // Without the waiver the bare bucket fails its contract, and nothing is planned.
    dir.write(
        "main.tf",
        &format!(
            "live {{\n  estate = \"{name}\"\n  record_store \"s3\" {{\n    bucket = \"{bucket}\"\n  }}\n}}\n"
        ),
    );
    let refused = dir.run(&["plan", "--json"]);
    refused.expect_code(1);
    assert_eq!(crate::cli::codes(&refused.json()), ["bucket-contract"]);
}

#[test]
fn cli_aws_credentials_come_from_a_credential_process_profile() {
    let (_emulator, name) = emulator_and_name("proc");
    let dir = Dir::with_config(&format!(
        r#"
live {{
  estate = "{name}"
}}

provider "aws" {{}}

resource "aws_s3_bucket" "data" {{
  bucket = "{name}"
}}
"#
    ));
    // A profile whose credentials come from a command (as with SSO helpers and vaults), and no keys in
    // the environment.
    let key = std::env::var("AWS_ACCESS_KEY_ID").expect("scripts/test sets the emulator's keys");
    let secret =
        std::env::var("AWS_SECRET_ACCESS_KEY").expect("scripts/test sets the emulator's keys");
    dir.write(
        "aws-config",
        &format!(
            "[profile lp-proc]\ncredential_process = printf '{{\"Version\": 1, \"AccessKeyId\": \"{key}\", \
             \"SecretAccessKey\": \"{secret}\"}}'\n"
        ),
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_liveplan"))
        .args(["plan", "--json", "-C"])
        .arg(dir.path())
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("RUST_LOG")
        .env("AWS_CONFIG_FILE", dir.path().join("aws-config"))
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            dir.path().join("no-credentials"),
        )
        .env("AWS_PROFILE", "lp-proc")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let plan = crate::cli::Run::from(out);
    plan.expect_code(0);
    assert_eq!(actions(&plan.json()), ["aws_s3_bucket.data create"]);
}

/// `plan` of a configuration with a provider block, on a machine whose SDK chain has `profile` (none when
/// `None`) and whose config file is `config_file`, with no credentials in the environment.
fn plan_without_credentials(profile: Option<&str>, config_file: &str) -> crate::cli::Run {
    let dir = Dir::with_config(
        "live {\n  estate = \"nocreds\"\n}\n\nprovider \"aws\" {}\n\nresource \"aws_s3_bucket\" \"b\" {\n  bucket = \"lp-nocreds\"\n}\n",
    );
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(aws.join("config"), config_file).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_liveplan"));
    cmd.args(["plan", "-C"])
        .arg(dir.path())
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_WEB_IDENTITY_TOKEN_FILE")
        .env_remove("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        .env_remove("AWS_CONTAINER_CREDENTIALS_FULL_URI")
        .env("HOME", home.path())
        .env("AWS_CONFIG_FILE", aws.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", aws.join("credentials"))
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .stdin(std::process::Stdio::null());
    if let Some(p) = profile {
        cmd.env("AWS_PROFILE", p);
    }
    crate::cli::Run::from(cmd.output().unwrap())
}

#[test]
fn cli_aws_no_credentials_is_one_error_naming_the_sources_tried() {
    let run = plan_without_credentials(None, "");
    run.expect_code(1);
    let errors: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("Error:"))
        .collect();
    assert_eq!(
        errors,
        [
            "Error: no AWS credentials were found; tried: the environment (AWS_ACCESS_KEY_ID and \
          AWS_SECRET_ACCESS_KEY), the shared config and credentials files for profile `default` (with its \
          SSO settings and credential_process), web identity (AWS_WEB_IDENTITY_TOKEN_FILE), the container \
          credentials endpoint and the instance metadata service [no-credentials]"
        ],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("`aws sso login`"), "{}", run.stdout);
    assert!(!run.stdout.contains("access denied"), "{}", run.stdout);
}

#[test]
fn cli_aws_a_failing_credential_command_is_no_credentials_with_its_reason() {
    let run = plan_without_credentials(
        Some("broken"),
        "[profile broken]\ncredential_process = /bin/false\nregion = us-east-1\n",
    );
    run.expect_code(1);
    let first = run.stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Error: the AWS credentials of profile `broken` could not be loaded: ")
            && first.contains("external process exited with code")
            && first.ends_with("[no-credentials]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("access denied"), "{}", run.stdout);
}

/// `allowed_account_ids` and `forbidden_account_ids` are checked against the account of the credentials
/// (the emulator's default account, 123456789012) before anything is read or written.
#[test]
fn cli_aws_account_lists_are_checked_against_the_callers_account() {
    let (_emulator, name) = emulator_and_name("acct");
    let config = |provider: &str| {
        format!(
            "live {{\n  estate = \"{name}\"\n}}\n\nprovider \"aws\" {{\n{provider}\n}}\n\nresource \"aws_s3_bucket\" \"b\" {{\n  bucket = \"{name}\"\n}}\n"
        )
    };
    let refused = Dir::with_config(&config("  allowed_account_ids = [\"111111111111\"]"));
    let run = refused.run(&["plan", "-json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(
        crate::cli::codes(&doc),
        ["account-not-allowed"],
        "{}",
        run.stdout
    );
    assert!(
        doc["diagnostics"][0]["summary"].as_str().unwrap().contains(
            "account 123456789012 of the AWS credentials is not in `allowed_account_ids`"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(actions(&doc), Vec::<String>::new());
    let forbidden = Dir::with_config(&config("  forbidden_account_ids = [\"123456789012\"]"));
    let run = forbidden.run(&["plan", "-json"]);
    run.expect_code(1);
    assert_eq!(crate::cli::codes(&run.json()), ["account-not-allowed"]);
    let allowed = Dir::with_config(&config("  allowed_account_ids = [\"123456789012\"]"));
    let run = allowed.run(&["plan", "-json"]);
    run.expect_code(0);
    assert_eq!(actions(&run.json()), ["aws_s3_bucket.b create"]);
}
