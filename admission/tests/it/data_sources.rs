//! Data blocks: parsed and judged as Terraform writes them (`data "TYPE" "NAME" { ... }`, referenced as
//! `data.TYPE.NAME.ATTR`), read before the lint so that an identity may use them, and refused where
//! liveplan cannot read them at plan time.

use std::collections::BTreeMap;

use admission::{
    BlockAddress, IdentityValue, SourceFile, Sources, Value, VariableInputs, VariableMode,
    data_read_order,
};
use expect_test::{Expect, expect};

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

/// The diagnostics of `main` as one line each: code, position, address and summary.
fn lines(diags: &[admission::Diagnostic]) -> String {
    crate::diagnostic_lines(diags)
}

/// Lints `main` for a plan, with the data blocks `read` (by type and name) already read.
fn lint_read(main: &str, read: &[(&str, &str, Value)]) -> admission::Linted {
    let files = [SourceFile::new("main.tf", main)];
    let inputs = VariableInputs::default();
    let mut prepared = admission::prepare(&Sources::new(&files, &inputs), VariableMode::Plan);
    let values: BTreeMap<BlockAddress, Value> = read
        .iter()
        .map(|(t, n, v)| (BlockAddress::new(*t, *n).unwrap(), v.clone()))
        .collect();
    prepared.config.set_data_values(values);
    admission::lint_prepared(prepared, &crate::contract()).1
}

fn check(main: &str, expect: Expect) {
    expect.assert_eq(&lines(
        &crate::lint_main(main, &VariableInputs::default()).diagnostics,
    ));
}

fn account() -> Value {
    Value::from_json(serde_json::json!({
        "id": "123456789012", "account_id": "123456789012",
        "arn": "arn:aws:iam::123456789012:root", "user_id": "123456789012"
    }))
}

const BUCKET_FROM_ACCOUNT: &str = r#"data "aws_caller_identity" "current" {}
resource "aws_s3_bucket" "logs" {
  bucket = "logs-${data.aws_caller_identity.current.account_id}"
}
"#;

#[test]
fn data_sources_give_a_static_identity_once_read() {
    let main = format!("{LIVE}{BUCKET_FROM_ACCOUNT}");
    let linted = lint_read(&main, &[("aws_caller_identity", "current", account())]);
    assert_eq!(lines(&linted.diagnostics), "");
    let bucket = &linted.instances[0];
    assert_eq!(bucket.address.to_string(), "aws_s3_bucket.logs");
    assert_eq!(
        bucket.identity,
        vec![(
            "bucket".to_owned(),
            IdentityValue::Static(Value::from("logs-123456789012"))
        )]
    );
}

#[test]
fn data_sources_not_read_leave_an_identity_unknown() {
    // Nothing read (an argument known only at apply would leave it so): the identity is not static.
    check(
        &format!("{LIVE}{BUCKET_FROM_ACCOUNT}"),
        expect![
            "non-static-identity main.tf:6:12 aws_s3_bucket.logs: identity argument `bucket` of `aws_s3_bucket.logs` is not known until apply"
        ],
    );
    // `validate` reads no data source and leaves the identity to the plan, as for a variable.
    let files = [SourceFile::new(
        "main.tf",
        format!("{LIVE}{BUCKET_FROM_ACCOUNT}"),
    )];
    let inputs = VariableInputs::default();
    let (_, linted) = admission::validate(&Sources::new(&files, &inputs), &crate::contract());
    assert_eq!(lines(&linted.diagnostics), "");
}

#[test]
fn data_sources_repeat_with_count_and_for_each() {
    let main = format!(
        r#"{LIVE}data "aws_region" "each" {{
  for_each = toset(["eu-west-1", "us-east-2"])
  name     = each.key
}}
data "aws_region" "n" {{
  count = 2
}}
resource "aws_s3_bucket" "b" {{
  bucket     = "b-${{data.aws_region.each["eu-west-1"].name}}-${{data.aws_region.n[1].name}}"
  depends_on = [data.aws_region.n]
}}
"#
    );
    let region = |n: &str| Value::from_json(serde_json::json!({"name": n}));
    let each = Value::from_json(serde_json::json!({
        "eu-west-1": {"name": "eu-west-1"}, "us-east-2": {"name": "us-east-2"}
    }));
    let linted = lint_read(
        &main,
        &[
            ("aws_region", "each", each),
            (
                "aws_region",
                "n",
                Value::List(vec![region("x"), region("us-east-1")]),
            ),
        ],
    );
    assert_eq!(lines(&linted.diagnostics), "");
    assert_eq!(
        linted.instances[0].identity[0].1,
        IdentityValue::Static(Value::from("b-eu-west-1-us-east-1"))
    );
}

#[test]
fn data_sources_are_read_after_the_data_sources_they_read() {
    let files = [SourceFile::new(
        "main.tf",
        r#"data "aws_region" "b" { name = local.first }
locals { first = data.aws_region.a.name }
data "aws_region" "a" {}
data "aws_region" "late" { name = aws_s3_bucket.x.bucket }
data "aws_region" "after_late" { name = data.aws_region.late.name }
resource "aws_s3_bucket" "x" { bucket = "x" }
"#,
    )];
    let (config, _) = admission::parse_config(&files);
    let order: Vec<String> = data_read_order(&config)
        .iter()
        .map(|d| d.address().to_string())
        .collect();
    // A block that reads a resource, and one that reads such a block, can be read only at apply.
    assert_eq!(order, ["aws_region.a", "aws_region.b"]);
}

#[test]
fn data_sources_outside_what_liveplan_reads_are_refused() {
    check(
        &format!(
            r#"{LIVE}data "aws_instance" "main" {{}}
data "aws_region" "late" {{ name = aws_s3_bucket.b.bucket }}
data "aws_region" "a" {{ name = data.aws_region.b.name }}
data "aws_region" "b" {{ name = data.aws_region.a.name }}
data "aws_partition" "p" {{ bogus = 1 }}
data "aws_region" "r" {{}}
data "aws_region" "r" {{}}
data "aws_region" "u" {{ name = var.nope }}
data "aws_region" "l" {{
  lifecycle {{
    postcondition {{
      condition     = true
      error_message = "x"
    }}
  }}
}}
resource "aws_s3_bucket" "b" {{
  bucket     = "b"
  tags       = {{ r = data.aws_region.r.nope, u = data.aws_region.missing.name }}
  depends_on = [data.aws_region.r.name, data.aws_nope.x]
}}
"#
        ),
        expect![[r#"
            dependency-cycle main.tf:6:1 data.aws_region.a: `data.aws_region.a` waits for itself through the data sources it reads
            dependency-cycle main.tf:7:1 data.aws_region.b: `data.aws_region.b` waits for itself through the data sources it reads
            duplicate-declaration main.tf:10:1: Duplicate data declaration: data `data.aws_region.r` is declared twice
            invalid-argument main.tf:23:17: Invalid value: `depends_on` entries must name a whole data source, not one of its attributes
            invalid-argument main.tf:8:28 data.aws_partition.p: Unsupported argument: data source `aws_partition` has no argument `bogus`
            unknown-reference main.tf:22:22 aws_s3_bucket.b: data source `aws_region` has no attribute `nope`
            unknown-reference main.tf:22:50 aws_s3_bucket.b: data source `data.aws_region.missing` is not declared
            unknown-reference main.tf:23:41 aws_s3_bucket.b: `depends_on` names `data.aws_nope.x`, which is not declared
            unknown-reference main.tf:11:32 data.aws_region.u: variable `nope` is not declared
            unsupported-construct main.tf:12:1: `lifecycle` block of `data.aws_region.l` is not supported
            unsupported-construct main.tf:5:1 data.aws_region.late: `data.aws_region.late` reads `aws_s3_bucket.b`, known only after apply
            unsupported-type main.tf:4:1 data.aws_instance.main: data source type `aws_instance` is not supported"#]],
    );
}
