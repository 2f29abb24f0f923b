//! What the lint knows of each instance before any read: the static values that bind-candidate matching
//! compares, and the identity values discovery looks objects up by. A value counts as static only when
//! it is computed without reading a resource, even where the plan's evaluation happens to know it.

use admission::IdentityValue;
use admission::VariableInputs;
use expect_test::{Expect, expect};

/// Lints `main.tf` and renders, per instance, its static values and identity, then every diagnostic.
fn check_static(main: &str, expect: Expect) {
    let linted = crate::lint_main(main, &VariableInputs::default());
    let mut lines = Vec::new();
    for instance in &linted.instances {
        let statics: Vec<String> = instance
            .static_values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let identity: Vec<String> = instance
            .identity
            .iter()
            .map(|(k, v)| match v {
                IdentityValue::Static(v) => format!("{k}={v}"),
                IdentityValue::FromParent => format!("{k}<-parent"),
            })
            .collect();
        lines.push(format!(
            "{} static[{}] identity[{}]",
            instance.address,
            statics.join(" "),
            identity.join(" ")
        ));
    }
    for d in &linted.diagnostics {
        let pos = d.pos.as_ref().map(|p| format!(" {p}")).unwrap_or_default();
        lines.push(format!("{}{pos}: {}", d.code, d.summary));
    }
    expect.assert_eq(&lines.join("\n"));
}

#[test]
fn lint_static_values_leave_out_what_reads_a_resource_even_when_known() {
    check_static(
        r#"
live {
  estate = "acme"
}
locals {
  prefix = "acme"
  vpc    = aws_vpc.main.id
}
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
resource "aws_security_group" "sg" {
  count       = 2
  name        = "${local.prefix}-sg-${count.index}"
  vpc_id      = false || aws_vpc.main.id == "" ? "vpc-1" : "vpc-2"
  description = local.vpc == "" ? "a" : "b"
}
"#,
        expect![[r#"
            aws_security_group.sg[0] static[name="acme-sg-0"] identity[]
            aws_security_group.sg[1] static[name="acme-sg-1"] identity[]
            aws_vpc.main static[cidr_block="10.0.0.0/16"] identity[]"#]],
    );
}

#[test]
fn lint_static_values_identities_through_locals_are_static_or_come_from_parents() {
    check_static(
        r#"
live {
  estate = "acme"
}
locals {
  prefix = "acme"
  bucket = aws_s3_bucket.b[0].id
}
resource "aws_s3_bucket" "b" {
  count  = 2
  bucket = "${local.prefix}-${count.index}"
}
resource "aws_s3_bucket_versioning" "v" {
  bucket = local.bucket
  versioning_configuration {
    status = "Enabled"
  }
}
resource "aws_iam_role" "r" {
  name               = local.bucket
  assume_role_policy = jsonencode({ Version = "2012-10-17", Statement = [] })
}
"#,
        expect![[r#"
            aws_iam_role.r static[assume_role_policy="{\"Statement\":[],\"Version\":\"2012-10-17\"}"] identity[]
            aws_s3_bucket.b[0] static[bucket="acme-0"] identity[bucket="acme-0"]
            aws_s3_bucket.b[1] static[bucket="acme-1"] identity[bucket="acme-1"]
            aws_s3_bucket_versioning.v static[versioning_configuration=[{ status = "Enabled" }]] identity[bucket<-parent]
            non-static-identity main.tf:7:12: identity argument `name` of `aws_iam_role.r` reads a resource attribute"#]],
    );
}
