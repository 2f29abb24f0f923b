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

/// The configuration of estate `acme` with a sensitive variable `secret` defaulting to `secret`, and
/// `resources`.
fn with_secret(secret: &str, resources: &str) -> String {
    format!(
        r#"
live {{
  estate = "acme"
}}

variable "secret" {{
  type      = string
  default   = "{secret}"
  sensitive = true
}}

{resources}"#
    )
}

/// A role whose arguments carry `secret`, and a count block whose members do.
fn rotating_config(secret: &str, count: u32) -> String {
    with_secret(
        secret,
        &format!(
            r#"resource "aws_iam_role" "r" {{
  name               = "acme-role"
  assume_role_policy = jsonencode({{ Version = "2012-10-17", Statement = [], Sid = var.secret }})
  description        = "token ${{var.secret}}"
}}

resource "aws_iam_role" "many" {{
  count              = {count}
  name               = "acme-many-${{count.index}}"
  assume_role_policy = "{{}}"
  description        = "token ${{var.secret}}"
}}
"#
        ),
    )
}

const ROTATED: &str = "r0tated-sentinel-2b4c";

/// F12: after a rotation the old value is masked as well as the new one (text, JSON, the no-op's
/// `before` of a verbose plan), and a count surplus being destroyed hides what its block marks.
#[tokio::test]
async fn a_rotated_secret_is_masked_on_both_sides_of_its_diff() {
    let world = Bench::empty();
    world.converge(&rotating_config(SENTINEL, 2)).await;
    let unchanged = world.plan(&rotating_config(SENTINEL, 2)).await;
    assert!(unchanged.summary().is_empty(), "{}", text(&unchanged));
    let verbose = engine::render::json(&unchanged, engine::render::RenderOptions { verbose: true });
    assert!(
        !verbose.contains(SENTINEL) && verbose.contains("\"(sensitive)\""),
        "the no-op's before hides the secret:\n{verbose}"
    );
    let rotated = world.plan(&rotating_config(ROTATED, 1)).await;
    let shown = text(&rotated);
    for line in [
        "      ~ assume_role_policy    = (sensitive value) -> (sensitive value)",
        "      ~ description           = (sensitive value) -> (sensitive value)",
        "      - description          = (sensitive value)",
    ] {
        assert!(shown.lines().any(|l| l == line), "{line:?} in:\n{shown}");
    }
    for (what, shown) in [("text", shown.clone()), ("json", json(&rotated))] {
        assert!(
            !shown.contains(SENTINEL) && !shown.contains(ROTATED),
            "the rotated plan's {what} shows a secret:\n{shown}"
        );
    }
    let journal = Journal::default();
    let outcome = world.apply_journaled(rotated, &journal).await;
    assert_eq!(diagnostics(&outcome), "");
    let events = journal.lines().join("\n");
    assert!(!events.contains(SENTINEL) && !events.contains(ROTATED));
}

/// F13: a tag key computed from a secret makes the tags sensitive whole, keys included, on a create and
/// on the next plan of the applied object.
#[tokio::test]
async fn a_sensitive_tag_key_is_never_shown() {
    let world = Bench::empty();
    let config = with_secret(
        SENTINEL,
        r#"resource "aws_vpc" "v" {
  cidr_block = "10.0.0.0/16"
  tags       = { (var.secret) = "v", Name = "plain" }
}
"#,
    );
    let plan = world.plan(&config).await;
    let shown = text(&plan);
    assert!(
        shown
            .lines()
            .any(|l| l == "      + tags                 = (sensitive value)"),
        "{shown}"
    );
    let graph = engine::graph::build(&plan).expect("acyclic");
    for (what, shown) in [
        ("text", shown.clone()),
        ("json", json(&plan)),
        ("debug", graph.debug_repr()),
        ("dot", graph.to_dot()),
    ] {
        assert!(
            !shown.contains(SENTINEL),
            "the {what} shows the key:\n{shown}"
        );
    }
    world.converge(&config).await;
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
    let verbose = engine::render::json(&again, engine::render::RenderOptions { verbose: true });
    assert!(!verbose.contains(SENTINEL), "{verbose}");
}

/// F13: a provider that quotes a sensitive argument back in its refusal (the simulated cloud's `got
/// "..."`) is reported with the operation and the kind of failure, its message withheld, in the
/// diagnostic and in the apply's events.
#[tokio::test]
async fn a_provider_refusal_of_a_sensitive_argument_never_quotes_it() {
    let world = Bench::empty();
    let config = with_secret(
        SENTINEL,
        r#"resource "aws_vpc" "v" {
  cidr_block = var.secret
}

resource "aws_iam_role" "r" {
  name               = "acme-role"
  assume_role_policy = var.secret
}
"#,
    );
    let plan = world.plan(&config).await;
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    let shown = diagnostics(&outcome);
    for line in [
        "creating aws_vpc.v failed: ec2:CreateVpc: invalid argument: the provider's message is not shown, since the call's arguments hold a sensitive value",
        "creating aws_iam_role.r failed: iam:CreateRole: invalid argument: the provider's message is not shown, since the call's arguments hold a sensitive value",
    ] {
        assert!(shown.contains(line), "{line:?} in:\n{shown}");
    }
    let events = journal.lines().join("\n");
    assert!(
        !shown.contains(SENTINEL) && !events.contains(SENTINEL),
        "{shown}\n{events}"
    );
}
