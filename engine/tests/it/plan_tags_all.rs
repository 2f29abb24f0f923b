//! `tags` and `tags_all` as the AWS provider v5 splits them, on the simulated cloud: the provider
//! configuration's default tags merged under a resource's own, `ignore_tags` keys neither set nor
//! removed, `ignore_changes` on `tags_all` or on one key, and the markers always managed and shown in
//! `tags_all` alone.

use expect_test::expect;

use crate::support::{Bench, diagnostics, live_tags, text};

/// The lines of the plan text for `address` that show `tags` or `tags_all`, trimmed.
fn tag_lines(plan_text: &str, address: &str) -> String {
    let header = format!("# {address} ");
    plan_text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&header))
        .take_while(|l| l.trim() != "}")
        .filter(|l| {
            let name = l.trim_start().trim_start_matches(['+', '~', '-', ' ']);
            name.starts_with("tags ") || name.starts_with("tags_all ")
        })
        .map(|l| format!("{}\n", l.trim()))
        .collect()
}

const DEFAULTS: &str = r#"
live {
  estate = "acme"
}

provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { Env = "prod", Team = "net" }
  }
}
"#;

#[tokio::test]
async fn ignore_changes_on_tags_all_keeps_every_non_marker_tag_and_still_repairs_the_markers() {
    // The address marker is missing; Env drifted and a foreign tag was added.
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-b", "attributes": { "bucket": "acme-b" },
            "tags": { "tofu-estate": "acme", "Env": "dev", "Team": "net", "Name": "a", "Scan": "yes" } }
        ]}"#,
    );
    let config = format!(
        r#"{DEFAULTS}
resource "aws_s3_bucket" "b" {{
  bucket = "acme-b"
  tags   = {{ Name = "b" }}

  lifecycle {{
    ignore_changes = [tags_all]
  }}
}}
"#
    );
    let plan = world.plan(&config).await;
    let change = &plan.changes[0];
    assert_eq!(change.reason.as_deref(), Some("marker repair"));
    expect![[r#"
        ~ tags_all      = { Env = "dev", Name = "a", Scan = "yes", Team = "net", tofu-estate = "acme" } -> { Env = "dev", Name = "a", Scan = "yes", Team = "net", tofu-address = "aws_s3_bucket.b", tofu-estate = "acme" }
    "#]]
    .assert_eq(&tag_lines(&text(&plan), "aws_s3_bucket.b"));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_s3_bucket acme-b [Env=dev Name=a Scan=yes Team=net tofu-address=aws_s3_bucket.b tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn ignore_changes_on_one_default_tag_key_keeps_it_while_the_rest_is_managed() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "Env": "dev", "Name": "a",
                      "Scan": "yes" } }
        ]}"#,
    );
    let config = format!(
        r#"{DEFAULTS}
resource "aws_vpc" "main" {{
  cidr_block = "10.0.0.0/16"
  tags       = {{ Name = "b" }}

  lifecycle {{
    ignore_changes = [tags["Env"]]
  }}
}}
"#
    );
    let plan = world.plan(&config).await;
    // Env keeps its live value; the foreign Scan goes; Team (a default) and the new Name are set.
    expect![[r#"
        ~ tags                 = { Name = "a", Scan = "yes" } -> { Name = "b" }
        ~ tags_all             = { Env = "dev", Name = "a", Scan = "yes", tofu-address = "aws_vpc.main", tofu-estate = "acme" } -> { Env = "dev", Name = "b", Team = "net", tofu-address = "aws_vpc.main", tofu-estate = "acme" }
    "#]]
    .assert_eq(&tag_lines(&text(&plan), "aws_vpc.main"));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_vpc vpc-00000001 [Env=dev Name=b Team=net tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn a_resource_tag_equal_to_its_default_stays_in_tags_and_plans_nothing() {
    let world = Bench::empty();
    let config = format!(
        r#"{DEFAULTS}
resource "aws_s3_bucket" "b" {{
  bucket = "acme-b"
  tags   = {{ Team = "net", Name = "b" }}
}}
"#
    );
    let plan = world.plan(&config).await;
    expect![[r#"
        + tags          = { Name = "b", Team = "net" }
        + tags_all      = { Env = "prod", Name = "b", Team = "net", tofu-address = "aws_s3_bucket.b", tofu-estate = "acme" }
    "#]]
    .assert_eq(&tag_lines(&text(&plan), "aws_s3_bucket.b"));
    world.apply(plan).await;
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn an_ignored_key_in_the_resource_tags_is_never_written_and_a_sensitive_default_is_hidden() {
    let world = Bench::empty();
    let config = r#"
live {
  estate = "acme"
}

variable "cost_code" {
  type      = string
  default   = "cc-4711"
  sensitive = true
}

provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { CostCode = var.cost_code }
  }
  ignore_tags {
    keys = ["LastScanned"]
  }
}

resource "aws_s3_bucket" "b" {
  bucket = "acme-b"
  tags   = { Name = "b", LastScanned = "never" }
}
"#;
    let plan = world.plan(config).await;
    let shown = text(&plan);
    assert!(!shown.contains("cc-4711"), "{shown}");
    expect![[r#"
        + tags          = { Name = "b" }
        + tags_all      = { CostCode = (sensitive value), Name = "b", tofu-address = "aws_s3_bucket.b", tofu-estate = "acme" }
    "#]]
    .assert_eq(&tag_lines(&shown, "aws_s3_bucket.b"));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_s3_bucket acme-b [CostCode=cc-4711 Name=b tofu-address=aws_s3_bucket.b tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}
