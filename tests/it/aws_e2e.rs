//! The real AWS path end to end: the `liveplan` binary with `provider "aws"` and `record_store "s3"`
//! against the local AWS emulator (started by scripts/test, which sets the standard AWS SDK variables).
//! Each test prepares its own record bucket through the SDK so that it meets the bucket contract (versioning
//! Enabled, a lifecycle rule expiring noncurrent versions under the record namespace, the public access
//! block all on) unless the contract is what it tests, and gives every bucket a name no other test or
//! process uses, because the emulator's state is shared. Without the emulator these tests fail and say to
//! use scripts/test; they never skip.

use std::io::{Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use aws_credential_types::Credentials;
use aws_credential_types::provider::SharedCredentialsProvider;

use aws_sdk_s3::types::{
    BucketLifecycleConfiguration, BucketVersioningStatus, ExpirationStatus, LifecycleRule,
    LifecycleRuleFilter, NoncurrentVersionExpiration, PublicAccessBlockConfiguration,
    VersioningConfiguration,
};
use serde_json::json;
use staterecord::testkit::emulator::S3Emulator;

use crate::cli::{Dir, Run, actions, codes};

/// The key prefix every test gives its record store (each test has a record bucket of its own).
/// An emulator account of a test's own (moto makes it on first use), reached through a role assumed in it:
/// its SDK configuration and the assumed credentials. `first` is the account id's first digit, so that
/// suites draw from apart ranges; `role` names the session.
pub(crate) async fn fresh_account(first: u8, role: &str) -> (aws_config::SdkConfig, Credentials) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed =
        nanos + u128::from(std::process::id()) + u128::from(NEXT.fetch_add(7, Ordering::SeqCst));
    let account = format!("{first}{:011}", seed % 100_000_000_000);
    let base = staterecord::s3::sdk_config_from_env(None, None).await;
    let assumed = aws_sdk_sts::Client::new(&base)
        .assume_role()
        .role_arn(format!("arn:aws:iam::{account}:role/{role}"))
        .role_session_name(role)
        .send()
        .await
        .expect("the emulator assumes a role in a fresh account");
    let c = assumed.credentials().expect("assumed credentials");
    let credentials = Credentials::new(
        c.access_key_id(),
        c.secret_access_key(),
        Some(c.session_token().to_owned()),
        None,
        "assumed-role",
    );
    let config = base
        .to_builder()
        .credentials_provider(SharedCredentialsProvider::new(credentials.clone()))
        .build();
    (config, credentials)
}

pub(crate) const KEY_PREFIX: &str = "teams/e2e";

/// What a converged plan prints.
pub(crate) const NO_CHANGES: &str = "No changes. The live system matches the configuration.\n";

/// A runtime to drive the emulator's S3 client with, and a name no other test or process uses.
pub(crate) struct Emulator {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) name: String,
    pub(crate) client: aws_sdk_s3::Client,
}

impl Emulator {
    pub(crate) fn connect(hint: &str) -> Emulator {
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
        let name = format!("lp-{hint}-{}-{nanos:08x}", std::process::id());
        Emulator {
            runtime,
            name,
            client: emulator.client,
        }
    }

    /// The same emulator seen from another account: S3 calls (the record bucket) go through `config`'s
    /// credentials from here on.
    pub(crate) fn in_account(mut self, config: &aws_config::SdkConfig) -> Emulator {
        self.client = aws_sdk_s3::Client::from_conf(staterecord::s3::s3_config(config).build());
        self
    }

    /// A fresh record bucket that meets the bucket contract, with versioning set to `versioning`.
    pub(crate) fn record_bucket(&self, versioning: BucketVersioningStatus) -> String {
        let client = &self.client;
        let bucket = format!("{}-rec", self.name);
        self.runtime.block_on(async {
            client.create_bucket().bucket(&bucket).send().await.unwrap();
            // Suspended is only reachable from Enabled, as in AWS.
            for status in [BucketVersioningStatus::Enabled, versioning] {
                client
                    .put_bucket_versioning()
                    .bucket(&bucket)
                    .versioning_configuration(
                        VersioningConfiguration::builder().status(status).build(),
                    )
                    .send()
                    .await
                    .unwrap();
            }
            let rule = LifecycleRule::builder()
                .id("expire-noncurrent-records")
                .status(ExpirationStatus::Enabled)
                .filter(LifecycleRuleFilter::builder().prefix(KEY_PREFIX).build())
                .noncurrent_version_expiration(
                    NoncurrentVersionExpiration::builder()
                        .noncurrent_days(30)
                        .build(),
                )
                .build()
                .unwrap();
            client
                .put_bucket_lifecycle_configuration()
                .bucket(&bucket)
                .lifecycle_configuration(
                    BucketLifecycleConfiguration::builder()
                        .rules(rule)
                        .build()
                        .unwrap(),
                )
                .send()
                .await
                .unwrap();
            client
                .put_public_access_block()
                .bucket(&bucket)
                .public_access_block_configuration(
                    PublicAccessBlockConfiguration::builder()
                        .block_public_acls(true)
                        .ignore_public_acls(true)
                        .block_public_policy(true)
                        .restrict_public_buckets(true)
                        .build(),
                )
                .send()
                .await
                .unwrap();
            bucket
        })
    }

    /// Creates a bucket directly, with no tags: an object no estate owns.
    fn create_unmarked_bucket(&self, bucket: &str) {
        self.runtime
            .block_on(self.client.create_bucket().bucket(bucket).send())
            .unwrap();
    }

    /// Whether a bucket exists.
    fn bucket_exists(&self, bucket: &str) -> bool {
        let answer = self
            .runtime
            .block_on(self.client.head_bucket().bucket(bucket).send());
        match answer {
            Ok(_) => true,
            Err(err) if err.as_service_error().is_some_and(|e| e.is_not_found()) => false,
            Err(err) => panic!(
                "HeadBucket {bucket}: {}",
                aws_sdk_s3::error::DisplayErrorContext(&err)
            ),
        }
    }

    /// The tags of a bucket as `key=value` lines, sorted (none for an untagged bucket).
    fn bucket_tags(&self, bucket: &str) -> Vec<String> {
        let answer = self
            .runtime
            .block_on(self.client.get_bucket_tagging().bucket(bucket).send());
        match answer {
            Ok(out) => {
                let mut tags: Vec<String> = out
                    .tag_set()
                    .iter()
                    .map(|t| format!("{}={}", t.key(), t.value()))
                    .collect();
                tags.sort();
                tags
            }
            Err(err)
                if aws_sdk_s3::error::ProvideErrorMetadata::code(&err) == Some("NoSuchTagSet") =>
            {
                Vec::new()
            }
            Err(err) => panic!(
                "GetBucketTagging {bucket}: {}",
                aws_sdk_s3::error::DisplayErrorContext(&err)
            ),
        }
    }

    /// The keys of the current objects in a bucket, sorted.
    fn object_keys(&self, bucket: &str) -> Vec<String> {
        let out = self
            .runtime
            .block_on(self.client.list_objects_v2().bucket(bucket).send())
            .unwrap();
        let mut keys: Vec<String> = out
            .contents()
            .iter()
            .map(|o| o.key().unwrap().to_owned())
            .collect();
        keys.sort();
        keys
    }
}

/// The `live` block of an estate whose records live in `bucket` under [`KEY_PREFIX`], with `extra` lines
/// inside the `record_store` block.
pub(crate) fn live_block(estate: &str, bucket: &str, extra: &str) -> String {
    format!(
        r#"
live {{
  estate = "{estate}"
  record_store "s3" {{
    bucket     = "{bucket}"
    key_prefix = "{KEY_PREFIX}"{extra}
  }}
}}

provider "aws" {{}}
"#
    )
}

/// A bare bucket block.
fn bucket_block(label: &str, bucket: &str) -> String {
    format!("\nresource \"aws_s3_bucket\" \"{label}\" {{\n  bucket = \"{bucket}\"\n}}\n")
}

/// The record keys `liveplan records --json` lists, sorted.
fn record_keys(dir: &Dir) -> Vec<String> {
    let run = dir.run(&["records", "--json"]);
    run.expect_code(0);
    let mut keys: Vec<String> = run.json()["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_owned())
        .collect();
    keys.sort();
    keys
}

#[test]
fn aws_e2e_estate_converges_deletes_only_what_it_owns_and_reports_the_unowned() {
    let emu = Emulator::connect("e2e");
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let versioned = "\nresource \"aws_s3_bucket_versioning\" \"a\" {\n  bucket = aws_s3_bucket.a.bucket\n  versioning_configuration {\n    status = \"Enabled\"\n  }\n}\n";
    let suffix = "\nresource \"random_id\" \"suffix\" {\n  byte_length = 4\n}\n";
    let (a, b, c) = (
        format!("{name}-a"),
        format!("{name}-b"),
        format!("{name}-c"),
    );
    let three = [
        live.as_str(),
        &bucket_block("a", &a),
        versioned,
        &bucket_block("b", &b),
        &bucket_block("c", &c),
        suffix,
    ]
    .concat();
    let dir = Dir::with_config(&three);

    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    assert_eq!(
        actions(&plan.json()),
        [
            "aws_s3_bucket.a create",
            "aws_s3_bucket.b create",
            "aws_s3_bucket.c create",
            "aws_s3_bucket_versioning.a create",
            "random_id.suffix create",
        ]
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert!(emu.bucket_exists(&a) && emu.bucket_exists(&b) && emu.bucket_exists(&c));
    // The records (the random id's value, and what the engine keeps about each bucket) are objects in the
    // record bucket under the key prefix, and nothing else is there.
    let keys = record_keys(&dir);
    assert!(
        keys.contains(&format!(
            // The address `random_id.suffix`, base64url without padding.
            "{KEY_PREFIX}/{name}/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA"
        )),
        "{keys:?}"
    );
    assert_eq!(emu.object_keys(&records), keys);
    assert!(
        !dir.path().join(".liveplan/records").exists() && !dir.cloud_file().exists(),
        "neither the local store nor the simulated cloud is used"
    );

    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);

    // A bucket made by hand, with no marker, is not this estate's to delete.
    let hand = format!("{name}-hand");
    emu.create_unmarked_bucket(&hand);

    let two = [
        live.as_str(),
        &bucket_block("a", &a),
        versioned,
        &bucket_block("b", &b),
        suffix,
    ]
    .concat();
    dir.write("main.tf", &two);
    let removal = dir.run(&["plan", "--detailed-exitcode"]);
    removal.expect_code(2);
    assert_eq!(
        removal.last_line(),
        "Plan: 0 to add, 0 to change, 1 to destroy."
    );
    let removal = dir.run(&["plan", "--json"]);
    removal.expect_code(0);
    assert_eq!(actions(&removal.json()), ["aws_s3_bucket.c delete"]);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert!(!emu.bucket_exists(&c), "the removed bucket is gone");
    assert!(emu.bucket_exists(&a) && emu.bucket_exists(&b));
    assert!(emu.bucket_exists(&hand), "the unmarked bucket is untouched");
    assert_eq!(emu.bucket_tags(&hand), Vec::<String>::new());
    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);

    // Declared, the hand-made bucket is reported as adoptable and nothing is planned for it.
    dir.write(
        "main.tf",
        &[two.as_str(), &bucket_block("hand", &hand)].concat(),
    );
    let declared = dir.run(&["plan", "--json"]);
    declared.expect_code(0);
    let doc = declared.json();
    assert_eq!(codes(&doc), ["unowned"]);
    assert_eq!(
        doc["summary"],
        json!({ "add": 0, "change": 0, "destroy": 0 })
    );
    assert_eq!(actions(&doc), Vec::<String>::new());
    assert_eq!(
        doc["unowned"],
        json!([{
            "address": "aws_s3_bucket.hand",
            "type": "aws_s3_bucket",
            "id": hand,
            "verdict": "adoptable",
            "estate": null,
            "command": "liveplan adopt aws_s3_bucket.hand",
        }])
    );
    let human = dir.run(&["plan"]);
    human.expect_code(0);
    assert!(
        human.stdout.contains(&format!(
            "aws_s3_bucket.hand: {hand} has no estate marker; to adopt it: liveplan adopt aws_s3_bucket.hand"
        )),
        "{}",
        human.stdout
    );
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."
    );
    assert!(
        emu.bucket_exists(&hand),
        "apply never deletes an unowned bucket"
    );
    assert_eq!(emu.bucket_tags(&hand), Vec::<String>::new(), "nor tags it");
}

/// `liveplan apply` under a pseudo-terminal (util-linux `script`), stopped at its confirmation prompt.
struct Prompted {
    child: Child,
    stdout: ChildStdout,
    shown: String,
}

impl Prompted {
    /// Starts `liveplan apply -C DIR` and reads its output up to the confirmation prompt.
    fn start(dir: &Dir) -> Prompted {
        let command = format!(
            "{} apply --no-color -C {}",
            env!("CARGO_BIN_EXE_liveplan"),
            dir.path().display()
        );
        let mut child = Command::new("script")
            .args(["-qefc", &command, "/dev/null"])
            .env_remove("RUST_LOG")
            .env("TERM", "dumb")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "util-linux `script` runs the CLI under a pseudo-terminal (scripts/test needs it)",
            );
        let mut stdout = child.stdout.take().unwrap();
        let mut shown = String::new();
        let mut chunk = [0u8; 4096];
        while !shown.contains("Only 'yes' will be accepted") {
            let n = stdout.read(&mut chunk).unwrap();
            assert!(n > 0, "apply ended before its prompt:\n{shown}");
            shown.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
        Prompted {
            child,
            stdout,
            shown,
        }
    }

    /// Answers `yes` and waits for the apply to end.
    fn approve(mut self) -> Run {
        let mut stdin = self.child.stdin.take().unwrap();
        stdin.write_all(b"yes\n").unwrap();
        drop(stdin);
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        Run {
            code: status.code().unwrap_or(-1),
            stdout: self.shown + &rest,
            stderr: String::new(),
        }
    }
}

#[test]
fn aws_e2e_concurrent_applies_on_one_record_bucket_lose_no_record() {
    let emu = Emulator::connect("race");
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let config = [
        live_block(&emu.name, &records, "").as_str(),
        "\nresource \"random_id\" \"suffix\" {\n  byte_length = 4\n}\n",
        "\nresource \"terraform_data\" \"build\" {\n  input = \"v1\"\n}\n",
    ]
    .concat();
    // Two operators with the same configuration: both plans are made and shown before either applies,
    // so both plan to create the same records.
    let (first, second) = (Dir::with_config(&config), Dir::with_config(&config));
    let first_apply = Prompted::start(&first);
    let second_apply = Prompted::start(&second);
    for shown in [&first_apply.shown, &second_apply.shown] {
        assert!(
            shown.contains("Plan: 2 to add, 0 to change, 0 to destroy."),
            "{shown}"
        );
    }

    let won = first_apply.approve();
    won.expect_code(0);
    let lost = second_apply.approve();
    lost.expect_code(1);
    assert!(lost.stdout.contains("version-conflict"), "{}", lost.stdout);

    let estate = &emu.name;
    // The addresses `random_id.suffix` and `terraform_data.build`, base64url without padding.
    let expected = [
        format!("{KEY_PREFIX}/{estate}/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA"),
        format!("{KEY_PREFIX}/{estate}/records/terraform_data/dGVycmFmb3JtX2RhdGEuYnVpbGQ"),
    ];
    for dir in [&first, &second] {
        let next = dir.run(&["plan", "--detailed-exitcode"]);
        next.expect_code(0);
        assert_eq!(next.stdout, NO_CHANGES);
        assert_eq!(record_keys(dir), expected);
    }
    assert_eq!(
        emu.object_keys(&records),
        expected,
        "exactly the winner's records, nothing twice"
    );
}

#[test]
fn aws_e2e_suspended_versioning_is_refused_unless_waived() {
    let emu = Emulator::connect("ver");
    let records = emu.record_bucket(BucketVersioningStatus::Suspended);
    let body = "\nresource \"random_id\" \"suffix\" {\n  byte_length = 4\n}\n";
    let dir = Dir::with_config(&[live_block(&emu.name, &records, "").as_str(), body].concat());

    let refused = dir.run(&["plan", "--json"]);
    refused.expect_code(1);
    let doc = refused.json();
    assert_eq!(codes(&doc), ["bucket-contract"]);
    let message = doc["diagnostics"][0].to_string();
    assert!(message.contains("versioning is Suspended"), "{message}");
    let refused = dir.run(&["apply", "--auto-approve"]);
    refused.expect_code(1);
    assert!(
        (refused.stdout.clone() + &refused.stderr).contains("versioning is Suspended"),
        "stdout:\n{}\nstderr:\n{}",
        refused.stdout,
        refused.stderr
    );
    assert_eq!(emu.object_keys(&records), Vec::<String>::new());

    let waived = live_block(
        &emu.name,
        &records,
        "\n    allow_insecure = [\"versioning\"]",
    );
    dir.write("main.tf", &[waived.as_str(), body].concat());
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(
        emu.object_keys(&records),
        [format!(
            "{KEY_PREFIX}/{}/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA",
            emu.name
        )]
    );
    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);
}

#[test]
fn aws_e2e_converged_plan_of_50_buckets_costs_at_most_10_api_calls() {
    let emu = Emulator::connect("fifty");
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let name = &emu.name;
    let config = format!(
        "{}\nresource \"aws_s3_bucket\" \"fleet\" {{\n  count  = 50\n  bucket = \"{name}-${{count.index}}\"\n}}\n",
        live_block(name, &records, "")
    );
    let dir = Dir::with_config(&config);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert!(emu.bucket_exists(&format!("{name}-0")) && emu.bucket_exists(&format!("{name}-49")));

    let plan = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    let cost = &doc["cost"];
    // One bulk listing and the estate's tagging sweep bind all 50 buckets, with no read per bucket. The
    // emulator ends a tagging page at 100 tags even when a page size in resources is asked (AWS does
    // not), and each bucket carries 3 marker tags: 33 buckets on the first page, 17 on the second.
    assert_eq!(
        cost["api_calls_by_operation"],
        json!({ "s3:ListBuckets": 1, "tagging:GetResources": 2 }),
    );
    assert_eq!(cost["api_calls"], 3);
    assert!(cost["api_calls"].as_u64().unwrap() <= 10);
}
