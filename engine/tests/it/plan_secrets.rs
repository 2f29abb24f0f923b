//! A sentinel secret never shows: not in plan text or JSON, the graph's debug text or DOT, apply events or
//! diagnostics.

use std::sync::Arc;

use crate::support::{Bench, Journal, diagnostics, json, text};

const SENTINEL: &str = "s3cr3t-sentinel-7f9a";

fn config() -> String {
    format!(
        r#"
live {{
  estate = "acme"
}}

variable "token" {{
  type      = string
  default   = "{SENTINEL}"
  sensitive = true
}}

resource "terraform_data" "holder" {{
  input = var.token
}}

resource "aws_iam_user" "ci" {{
  name = "ci"
}}

resource "aws_iam_access_key" "ci" {{
  user = aws_iam_user.ci.name
}}

resource "aws_s3_bucket" "b" {{
  bucket = "acme-b"
  tags   = {{ Token = var.token }}
}}

output "token" {{
  value     = var.token
  sensitive = true
}}
"#
    )
}

#[tokio::test]
async fn a_sentinel_secret_never_shows() {
    let world = Bench::empty();
    let config = config();
    let plan = world.plan(&config).await;
    let graph = engine::graph::build(&plan).expect("acyclic");
    for (what, shown) in [
        ("text", text(&plan)),
        ("json", json(&plan)),
        ("debug", graph.debug_repr()),
        ("dot", graph.to_dot()),
        (
            "marshal",
            String::from_utf8_lossy(&graph.marshal()).into_owned(),
        ),
    ] {
        assert!(
            !shown.contains(SENTINEL),
            "the {what} shows the secret:\n{shown}"
        );
    }
    assert!(
        text(&plan)
            .lines()
            .any(|l| l.contains("+ input") && l.ends_with("= (sensitive value)")),
        "{}",
        text(&plan)
    );
    assert!(json(&plan).contains("\"(sensitive)\""));
    // The marshalled graph leaves the secret out and still unmarshals to a graph shown the same way.
    let back = engine::graph::EngineGraph::unmarshal(&graph.marshal()).expect("it unmarshals");
    assert_eq!(back.debug_repr(), graph.debug_repr());
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    assert_eq!(diagnostics(&outcome), "");
    let events = journal.lines().join("\n");
    assert!(!events.contains(SENTINEL));
    assert_eq!(outcome.outputs["token"].to_string(), "(sensitive value)");
    // The access key's secret is kept as residue, and never shown by the next plan either.
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
    assert!(!text(&again).contains(SENTINEL) && !json(&again).contains(SENTINEL));
    let secret_key = world
        .record_keys()
        .await
        .into_iter()
        .find(|k| k.contains("/residue/aws_iam_access_key/"));
    assert!(
        secret_key.is_some(),
        "the access key's secret is kept in a residue record"
    );
    let _ = Arc::clone(&world.store);
}
