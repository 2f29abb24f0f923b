//! Custom conditions and lifecycle arguments at plan, on the simulated cloud: preconditions and
//! postconditions (errors, nothing planned for the instance), output preconditions, check blocks
//! (warnings), `replace_triggered_by`, and `ignore_changes` on the tags, which keeps the markers managed.

use expect_test::{Expect, expect};

use crate::support::{Bench, diagnostics, text};

/// Every diagnostic of `plan` as `severity code address: summary`, one per line.
fn plan_diagnostics(plan: &engine::Plan) -> String {
    plan.diagnostics
        .iter()
        .map(|d| {
            let addr = d
                .address
                .as_deref()
                .map(|a| format!(" {a}"))
                .unwrap_or_default();
            format!("{} {}{addr}: {}", d.severity().as_str(), d.code, d.summary)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The plan's diagnostics and the address and action of each change.
fn check_plan(plan: &engine::Plan, expect: Expect) {
    let mut out = vec![plan_diagnostics(plan)];
    out.extend(plan.changes.iter().map(|c| {
        format!(
            "{} {:?} {}",
            c.address,
            c.action,
            c.reason.clone().unwrap_or_default()
        )
    }));
    expect.assert_eq(&out.join("\n"));
}

const CONDITIONS: &str = r#"
live {
  estate = "acme"
}

variable "env" {
  default = "dev"
}

resource "aws_vpc" "main" {
  cidr_block = var.env == "prod" ? "10.0.0.0/16" : "10.9.0.0/24"

  lifecycle {
    precondition {
      condition     = var.env != "test"
      error_message = "the test environment has no network."
    }
    postcondition {
      condition     = endswith(self.cidr_block, "/16")
      error_message = "the VPC must be a /16, not ${self.cidr_block}."
    }
    postcondition {
      condition     = self.id != ""
      error_message = "known only after apply: not judged at plan."
    }
  }
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
}

output "vpc" {
  value = aws_vpc.main.cidr_block
  precondition {
    condition     = var.env != "staging"
    error_message = "no outputs for staging."
  }
}

check "sizes" {
  assert {
    condition     = aws_vpc.main.cidr_block == "10.0.0.0/16"
    error_message = "the VPC is not the standard /16."
  }
  assert {
    condition     = aws_subnet.a.id != ""
    error_message = "not known at plan: not judged."
  }
}

check "production" {
  assert {
    condition     = var.env == "prod"
    error_message = "this is not production."
  }
}
"#;

#[tokio::test]
async fn conditions_that_hold_plan_as_usual() {
    let world = Bench::empty();
    let plan = world.plan(&CONDITIONS.replace("\"dev\"", "\"prod\"")).await;
    check_plan(
        &plan,
        expect![[r#"

            aws_subnet.a Create 
            aws_vpc.main Create "#]],
    );
}

#[tokio::test]
async fn a_false_postcondition_blocks_its_instance_and_a_false_assertion_warns() {
    let world = Bench::empty();
    let plan = world.plan(CONDITIONS).await;
    check_plan(
        &plan,
        expect![[r#"
            error condition-failed aws_vpc.main: the VPC must be a /16, not 10.9.0.0/24.
            warning check-failed: this is not production.
            aws_subnet.a Create "#]],
    );
}

#[tokio::test]
async fn a_false_precondition_and_output_precondition_are_errors() {
    let world = Bench::empty();
    let plan = world.plan(&CONDITIONS.replace("\"dev\"", "\"test\"")).await;
    expect![[r#"
        error condition-failed aws_vpc.main: the VPC must be a /16, not 10.9.0.0/24.
        error condition-failed aws_vpc.main: the test environment has no network.
        warning check-failed: this is not production."#]]
    .assert_eq(&plan_diagnostics(&plan));
    let plan = world
        .plan(&CONDITIONS.replace("\"dev\"", "\"staging\""))
        .await;
    assert!(
        plan_diagnostics(&plan).contains("error condition-failed: no outputs for staging."),
        "{}",
        plan_diagnostics(&plan)
    );
}

const TRIGGERED: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = { Tier = "core" }
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
  lifecycle {
    replace_triggered_by = [aws_vpc.main]
  }
}

resource "aws_subnet" "b" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.2.0/24"
  lifecycle {
    replace_triggered_by = [aws_vpc.main.cidr_block]
  }
}
"#;

#[tokio::test]
async fn replace_triggered_by_replaces_when_the_referenced_resource_changes() {
    let world = Bench::empty();
    world.converge(TRIGGERED).await;
    let again = world.plan(TRIGGERED).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
    // A tag change updates the VPC: the subnet triggered by the whole VPC is replaced, the one triggered
    // by its `cidr_block` is not.
    let plan = world.plan(&TRIGGERED.replace("core", "edge")).await;
    check_plan(
        &plan,
        expect![[r#"

            aws_subnet.a Replace replaced due to changes in replace_triggered_by (aws_vpc.main)
            aws_subnet.b NoOp 
            aws_vpc.main Update "#]],
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    let after = world.plan(&TRIGGERED.replace("core", "edge")).await;
    assert!(after.summary().is_empty(), "{}", text(&after));
}

const IGNORING_TAGS: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = { Name = "cfg-name" }

  lifecycle {
    ignore_changes = [tags]
  }
}
"#;

#[tokio::test]
async fn ignore_changes_on_the_tags_keeps_live_tags_but_repairs_the_markers() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "Name": "live-name", "Team": "ops" } }
        ]}"#,
    );
    // The live tags differ from the configuration: nothing is planned.
    let plan = world.plan(IGNORING_TAGS).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    // `ignore_changes = all` ignores them too.
    let all = IGNORING_TAGS.replace("[tags]", "all");
    let plan = world.plan(&all).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
}

#[tokio::test]
async fn ignore_changes_on_the_tags_still_repairs_a_stale_address_marker() {
    // The bucket carries this estate's marker for an address no longer declared (the block was renamed):
    // the markers stay managed and are repaired, the other tags are kept as they are.
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-logs", "attributes": { "bucket": "acme-logs" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_s3_bucket.old", "Name": "live-name" } }
        ]}"#,
    );
    let config = r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
  tags   = { Name = "cfg-name", Team = "data" }

  lifecycle {
    ignore_changes = [tags]
  }
}
"#;
    let plan = world.plan(config).await;
    let change = plan
        .changes
        .iter()
        .find(|c| c.address.to_string() == "aws_s3_bucket.logs")
        .expect("a change for the bucket");
    expect![[r#"Update Some("marker repair") {"tofu-address": "aws_s3_bucket.logs"} {}"#]]
        .assert_eq(&format!(
            "{:?} {:?} {:?} {:?}",
            change.action, change.reason, change.tag_change.set, change.tag_change.remove
        ));
}

#[tokio::test]
async fn apply_conditions_a_postcondition_on_a_value_known_after_apply_is_judged_by_apply() {
    // The first postcondition and the check read the id the cloud mints, unknown at plan: the plan is
    // clean, the apply creates the VPC and then reports the false postcondition (an error naming it) and
    // the false assertion (a warning), and leaves the subnet's postcondition, which holds, silent.
    let world = Bench::empty();
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"

  lifecycle {
    postcondition {
      condition     = startswith(self.id, "vpc-9")
      error_message = "expected a vpc-9 id, got ${self.id}."
    }
  }
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"

  lifecycle {
    postcondition {
      condition     = self.vpc_id == aws_vpc.main.id
      error_message = "the subnet is in another VPC."
    }
  }
}

check "ids" {
  assert {
    condition     = aws_vpc.main.id == "vpc-00000042"
    error_message = "the VPC is not the expected one."
  }
}
"#;
    let plan = world.plan(config).await;
    assert_eq!(plan_diagnostics(&plan), "");
    let outcome = world.apply(plan).await;
    expect![[r#"
        error [condition-failed]: expected a vpc-9 id, got vpc-00000001. (main.tf:10:5) aws_vpc.main
        warning [check-failed]: the VPC is not the expected one. (main.tf:30:3) 
    "#]]
    .assert_eq(&diagnostics(&outcome));
    // The object exists as the cloud made it, and the next plan judges the postcondition again (it plans
    // nothing for the VPC, so the check that reads it is not judged).
    assert_eq!(outcome.objects.len(), 2);
    let again = world.plan(config).await;
    expect![[r#"error condition-failed aws_vpc.main: expected a vpc-9 id, got vpc-00000001."#]]
        .assert_eq(&plan_diagnostics(&again));
}
