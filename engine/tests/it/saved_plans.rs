//! Saved plans through the engine's API: save, read back, review and apply; the sealed sensitive values
//! and the estate's key record; a record a saved plan read (a count block's slot record) moving under it.

use admission::{SourceFile, VarInput, VariableInputs};
use engine::{PlanOptions, SavedPlan, SavedReview, Sources};

use crate::support::*;

const TOKEN: &str = "tok-5b1e0c9d7a2f4e83";

fn bucket() -> &'static str {
    r#"
live {
  estate = "acme"
}

variable "token" {
  type      = string
  sensitive = true
}

resource "aws_s3_bucket" "b" {
  bucket = "acme-b"
  tags   = { Token = var.token }
}
"#
}

fn eips(n: u64) -> String {
    format!(
        "live {{\n  estate = \"acme\"\n}}\n\nresource \"aws_eip\" \"e\" {{\n  count = {n}\n}}\n"
    )
}

/// Plans `config` with `inputs` and saves it: the file's bytes.
async fn save(bench: &Bench, config: &str, inputs: &VariableInputs) -> Vec<u8> {
    let engine = bench.engine(4);
    let files = [SourceFile::new("main.tf", config)];
    let plan = engine
        .plan(Sources::new(&files, inputs))
        .await
        .expect("the plan runs");
    assert!(plan.applicable(), "{}", text(&plan));
    engine
        .save(&plan, Sources::new(&files, inputs), &PlanOptions::default())
        .await
        .expect("the plan is saved")
        .to_bytes()
}

/// Reviews the saved plan `bytes`: the reviewed plan, or the refusal's summaries.
async fn review(bench: &Bench, bytes: &[u8]) -> Result<engine::ReviewedPlan, Vec<String>> {
    let saved = SavedPlan::from_slice(bytes).expect("a saved plan");
    match bench.engine(4).review_saved(&saved, None).await.unwrap() {
        SavedReview::Current(reviewed) => Ok(*reviewed),
        SavedReview::Refused(problems) => Err(problems
            .iter()
            .map(|d| format!("{} [{}]", d.summary, d.code))
            .collect()),
    }
}

#[tokio::test]
async fn saved_plan_seals_a_sensitive_variable_under_the_estates_key_and_applies_with_it() {
    let bench = Bench::empty();
    let inputs = VariableInputs {
        cli: vec![VarInput::Var(format!("token={TOKEN}"))],
        ..VariableInputs::default()
    };
    let bytes = save(&bench, bucket(), &inputs).await;
    assert!(!String::from_utf8_lossy(&bytes).contains(TOKEN));
    let key = bench.store.get("_saved-plan-keys/acme").await.unwrap();
    assert!(key.is_some(), "the estate's key is a record of the store");

    let reviewed = review(&bench, &bytes).await.expect("nothing moved");
    let outcome = bench
        .engine(4)
        .apply(&reviewed, Default::default())
        .await
        .unwrap();
    assert!(outcome.succeeded(), "{}", diagnostics(&outcome));
    assert!(live_tags(&bench).await.contains(TOKEN));

    // A second saved plan reuses the key; without it, a sealed plan cannot be applied.
    let again = save(&bench, bucket(), &inputs).await;
    let same = bench
        .store
        .get("_saved-plan-keys/acme")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(Some(&same.version), key.as_ref().map(|r| &r.version));
    bench
        .store
        .delete("_saved-plan-keys/acme", Some(&same.version))
        .await
        .unwrap();
    let refused = review(&bench, &again).await.expect_err("no key, no apply");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("_saved-plan-keys/acme"), "{refused:?}");
    assert!(refused[0].ends_with("[stale-plan]"), "{refused:?}");
}

#[tokio::test]
async fn saved_plans_on_members_of_one_count_block_share_its_slot_record() {
    let bench = Bench::empty();
    bench.converge(&eips(1)).await;
    let inputs = VariableInputs::default();
    let first = save(&bench, &eips(2), &inputs).await;
    let second = save(&bench, &eips(2), &inputs).await;
    let reviewed = review(&bench, &first).await.expect("nothing moved");
    let outcome = bench
        .engine(4)
        .apply(&reviewed, Default::default())
        .await
        .unwrap();
    assert!(outcome.succeeded(), "{}", diagnostics(&outcome));
    let refused = review(&bench, &second)
        .await
        .expect_err("the slot record moved");
    assert!(
        refused
            .iter()
            .any(|s| s == "the saved plan is stale: record slots aws_eip.e changed since the plan [stale-plan]"),
        "{refused:?}"
    );
}
