//! Inline sets in the lint: a route table's `route` blocks and a security group's `ingress` and
//! `egress` blocks in the AWS provider v5's shape, written as blocks or as a list (`route = []`), the
//! provider's route targets that are not served refused by name, and a table with inline routes that a
//! standalone `aws_route` of the same configuration also writes to refused as `inline-and-standalone`.

use admission::VariableInputs;

use crate::lint_main;

const NETWORK: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
}
"#;

/// The diagnostics of `body` after the network, one `code: summary` line each.
fn lint(body: &str) -> Vec<String> {
    let linted = lint_main(&format!("{NETWORK}{body}"), &VariableInputs::default());
    linted
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code, d.summary))
        .collect()
}

#[test]
fn inline_sets_routes_and_rules_as_blocks_or_lists_are_accepted() {
    let body = r#"
resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id

  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.gw.id
  }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.main.id
  route  = []
}

resource "aws_security_group" "web" {
  name_prefix = "web-"
  vpc_id      = aws_vpc.main.id
  egress      = []

  dynamic "ingress" {
    for_each = [80, 443]
    content {
      from_port   = ingress.value
      to_port     = ingress.value
      protocol    = "tcp"
      cidr_blocks = ["0.0.0.0/0"]
    }
  }
}

resource "aws_security_group" "bare" {}
"#;
    assert_eq!(lint(body), Vec::<String>::new());
}

#[test]
fn inline_sets_a_route_target_not_served_is_refused_by_name() {
    let body = r#"
resource "aws_route_table" "private" {
  vpc_id = aws_vpc.main.id

  route {
    cidr_block     = "0.0.0.0/0"
    nat_gateway_id = "nat-0123456789abcdef0"
  }
}
"#;
    let linted = lint_main(&format!("{NETWORK}{body}"), &VariableInputs::default());
    let [d] = linted.diagnostics.as_slice() else {
        panic!("{:#?}", linted.diagnostics);
    };
    assert_eq!(d.code.as_str(), "unsupported-construct");
    assert_eq!(
        d.summary,
        "liveplan does not implement the argument `route.nat_gateway_id` of `aws_route_table`"
    );
    assert_eq!(
        d.detail,
        "NAT gateways are not served; route to a `gateway_id` or a `network_interface_id`"
    );
}

#[test]
fn inline_sets_a_rule_without_its_ports_and_a_rule_set_given_a_string_are_errors() {
    let body = r#"
resource "aws_security_group" "web" {
  vpc_id  = aws_vpc.main.id
  egress  = "all"

  ingress {
    protocol = "tcp"
  }
}
"#;
    assert_eq!(
        lint(body),
        [
            "block-as-argument: `egress` is a nested block type and takes blocks",
            "invalid-argument: Missing required argument: `ingress.from_port` is required",
            "invalid-argument: Missing required argument: `ingress.to_port` is required",
        ]
    );
}

#[test]
fn inline_sets_inline_routes_and_a_standalone_route_in_the_same_table_are_refused() {
    let body = r#"
resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id

  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.gw.id
  }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.main.id
}

resource "aws_route" "partner" {
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "10.99.0.0/16"
  gateway_id             = aws_internet_gateway.gw.id
}

resource "aws_route" "private_default" {
  route_table_id         = aws_route_table.private.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}
"#;
    let linted = lint_main(&format!("{NETWORK}{body}"), &VariableInputs::default());
    let [d] = linted.diagnostics.as_slice() else {
        panic!("{:#?}", linted.diagnostics);
    };
    assert_eq!(d.code.as_str(), "inline-and-standalone");
    assert_eq!(d.address.as_deref(), Some("aws_route.partner"));
    assert_eq!(
        d.summary,
        "`aws_route.partner` manages an entry of `aws_route_table.public`, whose inline `route` blocks are declared"
    );
    assert!(
        d.detail
            .contains("Write the entry as a `route` block of `aws_route_table.public`"),
        "{}",
        d.detail
    );
}
