//! Addresses too long for a base64url key segment, end to end: plan, apply, the next plan, `mv`, destroy.
//!
//! The lint admits addresses of up to 1,024 escaped characters; a record key segment holds about 150 bytes of
//! address. Every record such an instance needs (its create intent, its record-backed object, its count
//! block's slots, an output of a long name) must be written, read back by the next plan, and deleted.

use admission::config::{SourceFile, VariableInputs};
use engine::{MvRequest, PlanRequest, RetryConfig};
use expect_test::expect;
use staterecord::key::MAX_KEY_LEN;

use crate::support::{Bench, diagnostics};

/// A `for_each` key of 300 characters, with two-byte letters, a dot the marker escapes and a three-byte
/// symbol the marker hex-escapes.
fn long_key() -> String {
    format!("{}.ключ€{}", "é".repeat(150), "k".repeat(143))
}

/// A block or output name too long for a base64url segment.
fn long_name(first: char) -> String {
    format!("{first}_{}", "x".repeat(178))
}

fn config(vpc_keys: &[&str], tables: u32, with_output: bool) -> String {
    let keys: Vec<String> = vpc_keys.iter().map(|k| format!("{k:?}")).collect();
    let keys = keys.join(", ");
    let output = if with_output {
        format!(
            "output \"{}\" {{\n  value = aws_route_table.{}[*].id\n}}\n",
            long_name('o'),
            long_name('t')
        )
    } else {
        String::new()
    };
    format!(
        r#"
live {{
  estate = "acme"
}}

resource "aws_vpc" "net" {{
  cidr_block = "10.0.0.0/16"
}}

resource "aws_vpc" "main" {{
  for_each   = toset([{keys}])
  cidr_block = "10.1.0.0/16"
}}

resource "random_id" "suffix" {{
  for_each    = toset([{keys}])
  byte_length = 4
}}

resource "aws_route_table" "{table}" {{
  count  = {tables}
  vpc_id = aws_vpc.net.id
}}

{output}"#,
        table = long_name('t'),
    )
}

/// The record keys of the store, with each digest shortened to its mark: what a user sees in
/// `liveplan records`, less the hashes.
async fn keys(world: &Bench) -> String {
    let keys = world.record_keys().await;
    for key in &keys {
        assert!(key.len() <= MAX_KEY_LEN, "{key} is too long for the store");
        staterecord::validate_key(key).expect("every record key is valid");
    }
    keys.iter()
        .map(|k| match k.rsplit_once("/~") {
            Some((dir, digest)) => {
                assert_eq!(digest.len(), 64, "a SHA-256 in hex");
                format!("{dir}/~…\n")
            }
            None => format!("{k}\n"),
        })
        .collect()
}

#[tokio::test]
async fn a_long_for_each_key_applies_converges_and_is_destroyed() {
    let world = Bench::empty();
    let key = long_key();
    let declared = config(&[&key, "short"], 2, true);
    let plan = world.plan(&declared).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 7 to add, 0 to change, 0 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "every create writes its records");
    let again = world.plan(&declared).await;
    assert!(
        again.summary().is_empty(),
        "the next plan finds every object and record: {}",
        again.summary()
    );
    assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
    // The short address keeps the base64url key earlier versions wrote.
    expect![[r#"
        acme/intent/aws_route_table/~…
        acme/intent/aws_route_table/~…
        acme/intent/aws_vpc/YXdzX3ZwYy5tYWluWyJzaG9ydCJd
        acme/intent/aws_vpc/YXdzX3ZwYy5uZXQ
        acme/intent/aws_vpc/~…
        acme/outputs/~…
        acme/records/random_id/cmFuZG9tX2lkLnN1ZmZpeFsic2hvcnQiXQ
        acme/records/random_id/~…
        acme/slots/~…
    "#]]
    .assert_eq(&keys(&world).await);

    let emptied = config(&[], 0, false);
    let plan = world.plan(&emptied).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 0 to change, 6 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&emptied).await.summary().is_empty());
    // Only the VPC left and the count block's high-water mark (slots are never reused) stay.
    expect![[r#"
        acme/intent/aws_vpc/YXdzX3ZwYy5uZXQ
        acme/slots/~…
    "#]]
    .assert_eq(&keys(&world).await);
}

/// Moves the VPC and the random id of `old` (a `for_each` key) to `new`, under `config`.
async fn mv(world: &Bench, config: &str, old: &str, new: &str) {
    let files = [SourceFile::new("main.tf", config)];
    let inputs = VariableInputs::default();
    let request = PlanRequest {
        retry: RetryConfig::immediate(3),
        ..PlanRequest::new(&files, &inputs)
    };
    for block in ["aws_vpc.main", "random_id.suffix"] {
        let (old, new) = (format!("{block}[{old:?}]"), format!("{block}[{new:?}]"));
        let outcome = engine::mv(
            &request,
            world.cloud.as_ref(),
            world.store.clone(),
            &MvRequest {
                old: &old,
                new: &new,
                dry_run: false,
                allow_missing_config: false,
            },
        )
        .await
        .expect("mv runs");
        assert!(outcome.succeeded(), "{old}: {:?}", outcome.diagnostics);
    }
    let plan = world.plan(config).await;
    assert!(
        plan.summary().is_empty(),
        "the moved objects bind at their new address: {}",
        plan.summary()
    );
}

#[tokio::test]
async fn mv_moves_records_to_and_from_a_long_address() {
    let world = Bench::empty();
    let key = long_key();
    world.converge(&config(&["short"], 0, false)).await;
    let before = world.record_keys().await;

    mv(&world, &config(&[&key], 0, false), "short", &key).await;
    expect![[r#"
        acme/intent/aws_vpc/YXdzX3ZwYy5uZXQ
        acme/intent/aws_vpc/~…
        acme/records/random_id/~…
    "#]]
    .assert_eq(&keys(&world).await);

    // And back: the records return to the very keys they started at.
    mv(&world, &config(&["short"], 0, false), &key, "short").await;
    assert_eq!(world.record_keys().await, before);
}
