//! Parsing `*.tf` files into the configuration model, and refusing what lies outside the subset.

use admission::{IgnoreChanges, ProviderKind, RecordStoreKind, SourceFile, parse_config};
use expect_test::{Expect, expect};

/// Parses the files and renders every diagnostic as `code file:line:col summary`, one per line.
pub(crate) fn check_diags(files: &[(&str, &str)], expect: Expect) {
    let files: Vec<SourceFile> = files.iter().map(|(n, t)| SourceFile::new(*n, *t)).collect();
    let (_, diags) = parse_config(&files);
    let text: Vec<String> = diags
        .iter()
        .map(|d| {
            let pos = d.pos.as_ref().map(|p| p.to_string()).unwrap_or_default();
            format!("{} {} {}", d.code, pos, d.summary)
        })
        .collect();
    expect.assert_eq(&text.join("\n"));
}

#[test]
fn config_parse_reads_every_block_of_the_subset() {
    let main = r#"
live {
  estate = "acme-net"
  record_store "s3" {
    bucket     = "acme-records"
    key_prefix = "liveplan/"
  }
}

provider "sim" {
  region = "eu-west-1"
}

variable "cidr" {
  type        = string
  default     = "10.0.0.0/16"
  description = "VPC range"
}

variable "secret" {
  type      = string
  sensitive = true
}

locals {
  name = "net-${var.cidr}"
}

resource "aws_vpc" "main" {
  cidr_block = var.cidr
  tags       = { Name = local.name }
  lifecycle {
    create_before_destroy = true
    prevent_destroy       = true
    ignore_changes        = [tags["Name"]]
  }
}

resource "aws_subnet" "this" {
  for_each   = { a = "10.0.1.0/24" }
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
  depends_on = [aws_vpc.main]
}

output "vpc_id" {
  value     = aws_vpc.main.id
  sensitive = true
}
"#;
    let (config, diags) = parse_config(&[SourceFile::new("main.tf", main)]);
    assert_eq!(diags, vec![]);
    let live = config.live.as_ref().unwrap();
    assert_eq!(
        live.estate
            .as_ref()
            .unwrap()
            .expr
            .as_literal_str()
            .as_deref(),
        Some("acme-net")
    );
    let store = live.record_store.as_ref().unwrap();
    assert_eq!(store.kind, RecordStoreKind::S3);
    assert_eq!(
        store.settings.keys().collect::<Vec<_>>(),
        ["bucket", "key_prefix"]
    );
    assert_eq!(config.providers.len(), 1);
    assert_eq!(config.providers[0].kind, ProviderKind::Sim);
    assert_eq!(
        config.variables().keys().collect::<Vec<_>>(),
        ["cidr", "secret"]
    );
    assert!(config.variables()["secret"].sensitive);
    assert!(config.variables()["secret"].default.is_none());
    assert_eq!(
        config.variables()["cidr"].description.as_deref(),
        Some("VPC range")
    );
    assert_eq!(config.locals().keys().collect::<Vec<_>>(), ["name"]);
    let vpc = config.resource("aws_vpc", "main").unwrap();
    assert!(vpc.lifecycle.create_before_destroy && vpc.lifecycle.prevent_destroy);
    let IgnoreChanges::Paths(paths) = &vpc.lifecycle.ignore_changes else {
        panic!("paths expected")
    };
    assert_eq!(paths[0].0, ["tags", "Name"]);
    assert_eq!(vpc.attrs.keys().collect::<Vec<_>>(), ["cidr_block", "tags"]);
    assert_eq!((vpc.loc.line, vpc.loc.column), (29, 1));
    let subnet = config.resource("aws_subnet", "this").unwrap();
    assert!(matches!(
        subnet.repetition,
        admission::Repetition::ForEach(_)
    ));
    assert_eq!(subnet.depends_on[0].0, ["aws_vpc", "main"]);
    assert_eq!(
        subnet.attrs.keys().collect::<Vec<_>>(),
        ["cidr_block", "vpc_id"]
    );
    assert!(config.outputs()["vpc_id"].sensitive);
}

#[test]
fn config_parse_syntax_errors_name_file_line_and_column() {
    check_diags(
        &[
            ("a.tf", "resource \"aws_vpc\" \"x\" {\n  cidr_block = \n}\n"),
            ("b.tf", "locals {\n  x = [1, 2\n}\n"),
        ],
        expect![[r#"
            config-syntax a.tf:2:16 invalid HCL: invalid expression; expected `"`, `[`, `{`, `-`, `!`, `(`, `_`, `<`, letter or digit
            config-syntax b.tf:3:1 invalid HCL: expected `]`"#]],
    );
}

#[test]
fn config_parse_refuses_constructs_outside_the_subset_where_they_are() {
    let text = r#"module "net" {
  source = "./net"
}
data "aws_vpc" {}
moved {
  from = aws_vpc.a
  to   = aws_vpc.b
}
terraform {}
whatever "x" {}
top = 1
resource "aws_vpc" "v" {
  provider   = aws.west
  cidr_block = "10.0.0.0/16"
  provisioner "local-exec" {
    command = "echo"
  }
  dynamic "ingress" {
    for_each = []
  }
  lifecycle {
    replace_triggered_by = []
  }
}
resource "aws_vpc" "v" {}
resource "aws_vpc" "w" {
  count    = 2
  for_each = {}
  name     = "${provider::aws::arn_parse("x")}"
  note     = "%{if true}x%{endif}"
}
provider "google" {}
variable "v" {
  validation {}
}
output "o" {}
"#;
    check_diags(
        &[("main.tf", text)],
        expect![[r#"
            invalid-block main.tf:4:1 Wrong block labels: `data` block needs 2 label(s), found 1
            unsupported-construct main.tf:5:1 `moved` block is not supported
            invalid-block main.tf:10:1 Unsupported block type: blocks of type `whatever` are not expected here
            invalid-argument main.tf:11:1 Unsupported argument: an argument named `top` is not expected at the top level
            unsupported-construct main.tf:15:3 `provisioner` blocks are not supported
            invalid-dynamic-block main.tf:18:3 the `dynamic "ingress"` block needs `for_each` and a `content` block
            duplicate-declaration main.tf:25:1 Duplicate resource declaration: resource `aws_vpc.v` is declared twice
            invalid-argument main.tf:28:3 Invalid value: resource `aws_vpc.w` sets both `count` and `for_each`
            unsupported-construct main.tf:29:17 provider-defined functions are not supported
            unsupported-provider main.tf:32:1 provider `google` is not supported
            invalid-argument main.tf:34:3 Missing required argument: `validation` block has no `condition`
            invalid-argument main.tf:36:1 Missing required argument: output `o` has no `value`"#]],
    );
}

#[test]
fn config_parse_one_provider_selects_the_live_system() {
    check_diags(
        &[
            ("a.tf", "provider \"sim\" {}\n"),
            ("b.tf", "provider \"aws\" {\n  region = \"eu-west-1\"\n}\n"),
        ],
        expect![[
            r#"unsupported-construct b.tf:1:1 both `provider "aws"` and `provider "sim"` are declared"#
        ]],
    );
}

#[test]
fn config_parse_a_name_declared_twice_is_reported_once_with_what_to_do() {
    let text = r#"
variable "v" {}
variable "v" {}
locals {
  l = 1
}
locals {
  l = 2
}
resource "aws_vpc" "r" {}
resource "aws_vpc" "r" {}
output "o" {
  value = 1
}
output "o" {
  value = 2
}
"#;
    let (config, diags) = parse_config(&[SourceFile::new("main.tf", text)]);
    let text: Vec<String> = diags
        .iter()
        .map(|d| {
            let pos = d.pos.as_ref().map(|p| p.to_string()).unwrap_or_default();
            format!("{pos} {}: {}", d.summary, d.detail)
        })
        .collect();
    expect![[r#"
        main.tf:3:1 Duplicate variable declaration: variable `v` is declared twice: declare it once; to change a declaration of another file, write the block in an override file (`override.tf`, `*_override.tf`)
        main.tf:8:3 Duplicate local declaration: local `l` is declared twice: declare each local once; to change a declaration of another file, write the block in an override file (`override.tf`, `*_override.tf`)
        main.tf:11:1 Duplicate resource declaration: resource `aws_vpc.r` is declared twice: give each resource block a unique name; to change a declaration of another file, write the block in an override file (`override.tf`, `*_override.tf`)
        main.tf:15:1 Duplicate output declaration: output `o` is declared twice: declare it once; to change a declaration of another file, write the block in an override file (`override.tf`, `*_override.tf`)"#]]
    .assert_eq(&text.join("\n"));
    // The first declaration of each name is kept.
    assert_eq!(config.resources().len(), 1);
    assert_eq!(config.locals()["l"].loc.line, 5);
}
