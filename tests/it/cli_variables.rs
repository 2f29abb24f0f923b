//! Typed variables with validation, `validate` without variable values, and check blocks, through the
//! binary: what a user sees on the terminal and in `--json`.

use crate::cli::{Dir, actions, codes};

const NETWORK: &str = r#"
live {
  estate = "typed"
}

variable "network" {
  type = object({
    cidr    = string
    subnets = optional(number, 2)
  })
  validation {
    condition     = can(cidrhost(var.network.cidr, 0))
    error_message = "network.cidr must be a CIDR block, such as 10.0.0.0/16."
  }
}

resource "aws_vpc" "main" {
  cidr_block = var.network.cidr
}

resource "aws_subnet" "zone" {
  count      = var.network.subnets
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet(var.network.cidr, 8, count.index)
}

check "size" {
  assert {
    condition     = endswith(var.network.cidr, "/16")
    error_message = "the network is not a /16."
  }
}
"#;

#[test]
fn cli_validate_needs_no_value_for_a_required_variable() {
    let dir = Dir::with_config(NETWORK);
    let run = dir.run(&["validate"]);
    run.expect_code(0);
    assert_eq!(run.last_line(), "Success! The configuration is valid.");
    // A plan does.
    let run = dir.run(&["plan", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["invalid-variable"]);
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "variable `network` is required and has no value"
    );
}

#[test]
fn cli_a_failing_validation_shows_its_error_message() {
    let dir = Dir::with_config(NETWORK);
    let run = dir.run(&["plan", "--var", "network={ cidr = \"not-a-cidr\" }"]);
    run.expect_code(1);
    assert!(
        run.stdout
            .contains("network.cidr must be a CIDR block, such as 10.0.0.0/16."),
        "{}",
        run.stdout
    );
}

#[test]
fn cli_optional_defaults_expand_and_a_failing_check_only_warns() {
    let dir = Dir::with_config(NETWORK);
    let run = dir.run(&[
        "plan",
        "--json",
        "--detailed-exitcode",
        "--var",
        "network={ cidr = \"10.7.0.0/20\" }",
    ]);
    // Changes and a warning: the exit code is the changes' code, 2.
    run.expect_code(2);
    let doc = run.json();
    assert_eq!(codes(&doc), ["check-failed"]);
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "the network is not a /16."
    );
    assert_eq!(doc["diagnostics"][0]["severity"], "warning");
    assert_eq!(
        actions(&doc),
        [
            "aws_subnet.zone[0] create",
            "aws_subnet.zone[1] create",
            "aws_vpc.main create"
        ]
    );
}
