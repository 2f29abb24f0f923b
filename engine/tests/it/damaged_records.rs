//! F6 at the engine: a record the plan could not read is overwritten by the apply that needs it, with
//! compare-and-swap against the version of the damaged bytes, and a record changed after the plan is
//! still a `version-conflict`.

use crate::support::{Bench, diagnostics};

/// A record-backed instance and an output of its value: one record of each kind an apply rewrites.
pub const CONFIG: &str = r#"
live {
  estate = "acme"
}

resource "random_id" "suffix" {
  byte_length = 4
}

output "suffix" {
  value = random_id.suffix.hex
}
"#;

/// The key of `random_id.suffix`'s record (`b64url("random_id.suffix")`).
pub const SUFFIX_KEY: &str = "acme/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA";
/// The key of the `suffix` output's record (`b64url("suffix")`).
pub const OUTPUT_KEY: &str = "acme/outputs/c3VmZml4";

async fn damage(bench: &Bench, key: &str, payload: &[u8]) {
    let current = bench
        .store
        .get(key)
        .await
        .unwrap()
        .expect("the record exists");
    bench
        .store
        .put_if_version(key, payload, Some(&current.version))
        .await
        .unwrap();
}

#[tokio::test]
async fn damaged_records_an_unreadable_record_is_overwritten_by_the_apply_that_needs_it() {
    let bench = Bench::empty();
    assert_eq!(
        diagnostics(&bench.apply(bench.plan(CONFIG).await).await),
        ""
    );
    damage(
        &bench,
        SUFFIX_KEY,
        br#"{"format":"liveplan-record-v1","kind":"o"#,
    )
    .await;
    damage(&bench, OUTPUT_KEY, b"\x00\xffgarbage").await;

    let plan = bench.plan(CONFIG).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    assert_eq!(diagnostics(&bench.apply(plan).await), "");
    let again = bench.plan(CONFIG).await;
    assert_eq!(
        again.summary().to_string(),
        "No changes. The live system matches the configuration."
    );
    assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
}

#[tokio::test]
async fn damaged_records_a_record_changed_after_the_plan_is_still_a_version_conflict() {
    let bench = Bench::empty();
    bench.apply(bench.plan(CONFIG).await).await;
    damage(&bench, SUFFIX_KEY, b"damaged").await;
    let plan = bench.plan(CONFIG).await;
    // Another run replaces the damaged bytes after the plan read them.
    damage(&bench, SUFFIX_KEY, b"damaged again").await;
    let outcome = bench.apply(plan).await;
    assert!(
        diagnostics(&outcome).contains("[version-conflict]"),
        "{}",
        diagnostics(&outcome)
    );
}
