//! Nested blocks through plan and apply on the simulated cloud: a versioning configuration's
//! `versioning_configuration` block created, changed in place, ignored by path, and shown in the text and
//! JSON as Terraform shows blocks.

use expect_test::expect;

use crate::support::{Bench, diagnostics, json, text};

const VERSIONED: &str = r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "b" {
  bucket = "acme-b"
}

resource "aws_s3_bucket_versioning" "b" {
  bucket = aws_s3_bucket.b.bucket
  versioning_configuration {
    status = "Enabled"
  }
}
"#;

/// Plans `config` and checks that it changes nothing and reports nothing.
async fn no_changes(world: &Bench, config: &str) {
    let plan = world.plan(config).await;
    let shown = text(&plan);
    assert!(
        shown.contains("No changes.") && plan.diagnostics.is_empty(),
        "{shown}"
    );
}

#[tokio::test]
async fn plan_blocks_a_new_block_is_shown_as_a_block_and_applies_to_the_flat_api() {
    let world = Bench::empty();
    let plan = world.plan(VERSIONED).await;
    let shown = text(&plan);
    let versioning = shown
        .split("  # ")
        .find(|s| s.starts_with("aws_s3_bucket_versioning.b"))
        .unwrap();
    expect![[r#"
        aws_s3_bucket_versioning.b will be created
          + resource "aws_s3_bucket_versioning" "b" {
              + bucket = "acme-b"
              + id     = (known after apply)

              + versioning_configuration {
                  + mfa_delete = null
                  + status     = "Enabled"
                }
            }

        Plan: 2 to add, 0 to change, 0 to destroy.
    "#]]
    .assert_eq(versioning);
    let doc: serde_json::Value = serde_json::from_str(&json(&plan)).unwrap();
    assert_eq!(
        doc["resource_changes"][1]["after"]["versioning_configuration"],
        serde_json::json!([{ "mfa_delete": null, "status": "Enabled" }])
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let snapshot = world.cloud.snapshot().await.unwrap();
    let stored = snapshot
        .resources
        .iter()
        .find(|r| r.type_name == "aws_s3_bucket_versioning")
        .unwrap();
    // The cloud keeps S3's own shape.
    assert_eq!(stored.attributes["status"], serde_json::json!("Enabled"));
    no_changes(&world, VERSIONED).await;
}

#[tokio::test]
async fn plan_blocks_a_changed_block_is_updated_in_place_and_an_ignored_path_keeps_the_live_value()
{
    let world = Bench::empty();
    world.converge(VERSIONED).await;
    let suspended = VERSIONED.replace("\"Enabled\"", "\"Suspended\"");
    let plan = world.plan(&suspended).await;
    expect![[r#"
        liveplan will perform the following actions:

          # aws_s3_bucket_versioning.b will be updated in place
          ~ resource "aws_s3_bucket_versioning" "b" {
                id     = "acme-b"
                # (1 unchanged attribute hidden)

              ~ versioning_configuration {
                  ~ status     = "Enabled" -> "Suspended"
                    # (1 unchanged attribute hidden)
                }
            }

        Plan: 0 to add, 1 to change, 0 to destroy.
    "#]]
    .assert_eq(&text(&plan));
    let ignored = suspended.replace(
        "  versioning_configuration {",
        "  lifecycle {\n    ignore_changes = [versioning_configuration[0].status]\n  }\n  versioning_configuration {",
    );
    no_changes(&world, &ignored).await;
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    no_changes(&world, &suspended).await;
}
