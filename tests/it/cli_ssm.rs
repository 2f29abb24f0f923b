//! An estate on the simulated cloud whose records live in SSM Parameter Store on the local AWS emulator
//! (`record_store "ssm"`): it applies with one warning about what SSM guarantees, its records appear under
//! the prefix, and the re-plan is clean and costs the store requests the cost model predicts.

use std::sync::atomic::{AtomicU32, Ordering};

use staterecord::Store;
use staterecord::ssm::SsmStore;

use crate::cli::{Dir, codes};

/// A parameter prefix no other test of any process uses.
fn fresh_prefix() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "/liveplan-e2e/ssm-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn endpoint() -> String {
    std::env::var("AWS_ENDPOINT_URL").expect(
        "AWS_ENDPOINT_URL is not set: run the tests through scripts/test, which starts the emulator",
    )
}

const NETWORK: &str = r#"
resource "aws_vpc" "main" {
  cidr_block = "10.61.0.0/16"
  tags       = { Name = "ssm-records" }
}

resource "aws_subnet" "public" {
  count      = 3
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.61.0.0/16", 8, count.index)
}

resource "random_id" "suffix" {
  byte_length = 4
}

output "suffix" {
  value = random_id.suffix.hex
}
"#;

fn estate_dir(prefix: &str, extra: &str) -> Dir {
    Dir::with_config(&format!(
        "live {{\n  estate = \"ssm-e2e\"\n  record_store \"ssm\" {{\n    key_prefix = \"{prefix}\"\n{extra}  }}\n}}\n{NETWORK}"
    ))
}

async fn records_under(prefix: &str) -> Vec<String> {
    let client =
        staterecord::ssm::client_from_env(Some("us-east-1".to_owned()), Some(endpoint())).await;
    let store = SsmStore::new(client, prefix, "us-east-1").expect("a valid prefix");
    store.list("").await.expect("the records are listed")
}

#[test]
fn cli_ssm_an_estate_applies_with_its_records_in_parameter_store_and_replans_clean() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let prefix = fresh_prefix();
    let dir = estate_dir(&prefix, "");

    let apply = dir.run(&["apply", "--auto-approve"]);
    apply.expect_code(0);
    assert!(
        apply.stdout.contains("Apply complete! Resources: 5 added"),
        "{}",
        apply.stdout
    );
    // One warning per apply: SSM detects update conflicts, it does not prevent them.
    assert_eq!(
        apply.stdout.matches("[store-guarantee]").count(),
        1,
        "{}",
        apply.stdout
    );
    assert!(
        apply
            .stdout
            .contains("this record store's update conflicts are detected, not prevented"),
        "{}",
        apply.stdout
    );

    // The records are parameters under the prefix: a create intent per created instance, the slot mark,
    // the random_id's record and the output.
    let keys = runtime.block_on(records_under(&prefix));
    assert!(keys.iter().all(|k| k.starts_with("ssm-e2e/")), "{keys:?}");
    for want in [
        "ssm-e2e/intent/aws_vpc/",
        "ssm-e2e/intent/aws_subnet/",
        "ssm-e2e/slots/",
        "ssm-e2e/records/random_id/",
        "ssm-e2e/outputs/",
    ] {
        assert!(keys.iter().any(|k| k.starts_with(want)), "{want}: {keys:?}");
    }

    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    let plan = dir.run(&["plan", "--json"]).expect_code(0).json();
    assert!(codes(&plan).is_empty(), "{plan:#}");
    assert_eq!(plan["cost"]["store_trips"], 1);
    // One bulk read: `GetParametersByPath` pages of 10 parameters.
    let pages = keys.len().div_ceil(10) as u64;
    assert_eq!(
        plan["cost"]["store_requests"],
        pages,
        "{} records",
        keys.len()
    );
}

#[test]
fn cli_ssm_a_reserved_prefix_and_an_unknown_tier_are_refused_before_any_call() {
    let dir = estate_dir("/aws/records", "");
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert_eq!(codes(&doc), ["record-store-config"], "{doc:#}");
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "SSM parameter prefix \"/aws/records\" starts with \"aws\", which SSM reserves"
    );

    let dir = estate_dir(&fresh_prefix(), "    tier = \"premium\"\n");
    let doc = dir.run(&["plan", "--json"]).json();
    assert_eq!(codes(&doc), ["record-store-config"], "{doc:#}");
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "tier \"premium\" is not an SSM parameter tier: write \"standard\" or \"advanced\""
    );
}
