//! One configuration per config-side diagnostic code of the contract: each triggers its code and no other.

use std::collections::BTreeMap;

use admission::check;
use admission::{SourceFile, VarInput, VariableInputs};
use expect_test::{Expect, expect};

/// Runs parse + variables + lint on `main.tf` and renders every diagnostic as
/// `code file:line:col address: summary`.
fn check_with(main: &str, inputs: VariableInputs, estate_flag: Option<&str>, expect: Expect) {
    let files = [SourceFile::new("main.tf", main)];
    let (_, linted) = check(
        &admission::Sources::new(&files, &inputs)
            .with_outside_estate(estate_flag.map(admission::OutsideEstate::flag)),
        &crate::contract(),
    );
    expect.assert_eq(&crate::diagnostic_lines(&linted.diagnostics));
}

fn lint(main: &str, expect: Expect) {
    check_with(main, VariableInputs::default(), None, expect);
}

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

#[test]
fn lint_a_clean_configuration_has_no_diagnostics() {
    lint(
        &format!(
            r#"{LIVE}
variable "names" {{
  type    = list(string)
  default = ["a", "b"]
}}
resource "aws_s3_bucket" "b" {{
  count  = length(var.names)
  bucket = "acme-${{count.index}}"
  tags   = {{ Name = "x" }}
}}
resource "aws_s3_bucket_versioning" "v" {{
  count  = 2
  bucket = aws_s3_bucket.b[count.index].id
  versioning_configuration {{
    status = "Enabled"
  }}
}}
resource "aws_vpc" "main" {{
  cidr_block = "10.0.0.0/16"
}}
resource "aws_subnet" "s" {{
  for_each   = toset(["a.b", "c"])
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet(aws_vpc.main.cidr_block, 8, 1)
}}
resource "aws_route" "r" {{
  route_table_id         = aws_route_table.t.id
  destination_cidr_block = "0.0.0.0/0"
}}
resource "aws_route_table" "t" {{
  vpc_id = aws_vpc.main.id
}}
resource "random_id" "suffix" {{
  byte_length = 4
}}
output "ids" {{
  value = aws_s3_bucket.b[*].id
}}
"#
        ),
        expect![[""]],
    );
}

#[test]
fn lint_config_syntax() {
    lint(
        "live {\n  estate = \"acme\"\n",
        expect![
            "config-syntax main.tf:2:19: invalid HCL: invalid block body; expected `}`, newline or identifier"
        ],
    );
}

#[test]
fn lint_unsupported_construct() {
    lint(
        &format!("{LIVE}removed {{\n  from = aws_vpc.old\n}}\n"),
        expect![[r#"unsupported-construct main.tf:4:1: `removed` block is not supported"#]],
    );
}

#[test]
fn lint_unknown_reference() {
    lint(
        &format!(
            "{LIVE}resource \"aws_s3_bucket\" \"b\" {{\n  bucket = \"x\"\n  tags   = {{ Name = var.missing, Other = aws_vpc.nope.id }}\n}}\n"
        ),
        expect![[r#"
            unknown-reference main.tf:6:21 aws_s3_bucket.b: variable `missing` is not declared
            unknown-reference main.tf:6:42 aws_s3_bucket.b: resource `aws_vpc.nope` is not declared"#]],
    );
}

#[test]
fn lint_invalid_variable() {
    let main = format!(
        "{LIVE}variable \"n\" {{\n  type = number\n}}\nvariable \"required\" {{}}\nlocals {{\n  x = [var.n, var.required]\n}}\n"
    );
    let inputs = VariableInputs {
        cli: vec![VarInput::Var("n=abc".into())],
        ..Default::default()
    };
    check_with(
        &main,
        inputs,
        None,
        expect![[r#"
            invalid-variable: `--var n` does not fit type number: a number is required
            invalid-variable main.tf:7:1: variable `required` is required and has no value"#]],
    );
}

#[test]
fn lint_invalid_estate() {
    lint(
        "live {\n  estate = \"Prod_1\"\n}\n",
        expect![[
            r#"invalid-estate main.tf:2:12: estate name "Prod_1" is invalid: it must start with a lowercase letter"#
        ]],
    );
}

#[test]
fn lint_no_estate() {
    lint("locals {}\n", expect![[r#"no-estate: no estate is given"#]]);
}

#[test]
fn lint_estate_conflict() {
    check_with(
        LIVE,
        VariableInputs::default(),
        Some("other"),
        expect![[
            r#"estate-conflict main.tf:2:12: the `live` block in main.tf names estate "acme" but --estate names "other""#
        ]],
    );
}

#[test]
fn lint_estate_from_the_flag_alone_is_accepted() {
    let files = [SourceFile::new("main.tf", "locals {}\n")];
    let (_, linted) = check(
        &admission::Sources::new(&files, &VariableInputs::default())
            .with_outside_estate(Some(admission::OutsideEstate::flag("from-flag"))),
        &crate::contract(),
    );
    assert_eq!(linted.diagnostics, vec![]);
    assert_eq!(linted.estate.as_deref(), Some("from-flag"));
}

#[test]
fn lint_unsupported_type() {
    lint(
        &format!("{LIVE}resource \"aws_lambda_function\" \"f\" {{\n  name = \"x\"\n}}\n"),
        expect![[
            r#"unsupported-type main.tf:4:1 aws_lambda_function.f: resource type `aws_lambda_function` is not supported"#
        ]],
    );
}

#[test]
fn lint_default_types_are_refused_for_taking_over_what_aws_made() {
    let text = format!(
        "{LIVE}resource \"aws_default_vpc\" \"d\" {{}}\nresource \"aws_default_security_group\" \"g\" {{\n  vpc_id = \"vpc-1\"\n}}\n"
    );
    let files = [SourceFile::new("main.tf", text)];
    let (_, linted) = check(
        &admission::Sources::new(&files, &VariableInputs::default()),
        &crate::contract(),
    );
    let details: Vec<(&str, &str)> = linted
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.detail.as_str()))
        .collect();
    assert_eq!(
        details,
        [
            (
                "unsupported-type",
                "`aws_default_security_group` takes over the security group AWS made by itself, which \
                 this estate does not own, and liveplan never changes an object it does not own; refer \
                 to that object by its id, or declare an `aws_security_group` of the estate's own"
            ),
            (
                "unsupported-type",
                "`aws_default_vpc` takes over the VPC AWS made by itself, which this estate does not \
                 own, and liveplan never changes an object it does not own; refer to that object by its \
                 id, or declare an `aws_vpc` of the estate's own"
            ),
        ]
    );
}

#[test]
fn lint_unadmitted_type() {
    lint(
        &format!("{LIVE}resource \"aws_eip_association\" \"a\" {{\n}}\n"),
        expect![[
            r#"unadmitted-type main.tf:4:1 aws_eip_association.a: resource type `aws_eip_association` has no admission path"#
        ]],
    );
}

#[test]
fn lint_count_index() {
    lint(
        &format!(
            "{LIVE}resource \"aws_iam_user\" \"u\" {{\n  count = 3\n  name  = \"user-${{100 + (count.index % 3)}}\"\n}}\n"
        ),
        expect![[
            r#"count-index main.tf:6:11 aws_iam_user.u: identity argument `name` of `aws_iam_user.u` may give two instances one identity"#
        ]],
    );
}

#[test]
fn lint_for_each_key() {
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"v\" {{\n  for_each   = {{ \"a[1]\" = \"10.0.0.0/16\", ok = \"10.1.0.0/16\" }}\n  cidr_block = each.value\n}}\n"
        ),
        expect![[
            r#"for-each-key main.tf:5:16 aws_vpc.v: for_each key "a[1]" of `aws_vpc.v` cannot be used in an address: the key holds '['"#
        ]],
    );
}

#[test]
fn lint_overlong_address() {
    // Each `.` escapes to two characters, so a 600-character key of dots is 1,200 characters escaped.
    let key = ".".repeat(600);
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"v\" {{\n  for_each   = toset([\"{key}\"])\n  cidr_block = \"10.0.0.0/16\"\n}}\n"
        ),
        expect![[
            r#"overlong-address main.tf:4:1 aws_vpc.v["........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................"]: the address of `aws_vpc.v["........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................"]` is 1210 characters once escaped, over 1024"#
        ]],
    );
}

#[test]
fn lint_non_static_identity() {
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"v\" {{\n  cidr_block = \"10.0.0.0/16\"\n}}\nresource \"aws_iam_role\" \"r\" {{\n  name               = \"role-${{aws_vpc.v.id}}\"\n  assume_role_policy = \"{{}}\"\n}}\n"
        ),
        expect![
            "non-static-identity main.tf:8:32 aws_iam_role.r: identity argument `name` of `aws_iam_role.r` reads a resource attribute"
        ],
    );
}

#[test]
fn lint_non_static_count() {
    lint(
        &format!(
            "{LIVE}resource \"random_id\" \"n\" {{\n  byte_length = 2\n}}\nresource \"aws_vpc\" \"v\" {{\n  count      = length(random_id.n.hex)\n  cidr_block = \"10.0.0.0/16\"\n}}\n"
        ),
        expect![[
            r#"non-static-count main.tf:8:23 aws_vpc.v: `random_id.n.hex` is not known before the live system is read"#
        ]],
    );
}

#[test]
fn lint_non_static_for_each() {
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"main\" {{\n  cidr_block = \"10.0.0.0/16\"\n}}\nresource \"aws_subnet\" \"s\" {{\n  for_each   = {{ (aws_vpc.main.id) = \"10.0.1.0/24\" }}\n  vpc_id     = aws_vpc.main.id\n  cidr_block = each.value\n}}\n"
        ),
        expect![[
            r#"non-static-for-each main.tf:8:19 aws_subnet.s: `aws_vpc.main.id` is not known before the live system is read"#
        ]],
    );
}

#[test]
fn lint_identity_not_set() {
    lint(
        &format!(
            "{LIVE}variable \"name\" {{\n  default = null\n}}\nresource \"aws_iam_user\" \"a\" {{\n  name = var.name\n}}\nresource \"aws_cloudwatch_log_group\" \"g\" {{\n}}\n"
        ),
        expect![[r#"
            identity-not-set main.tf:10:1 aws_cloudwatch_log_group.g: identity argument `name` of `aws_cloudwatch_log_group.g` is not set
            identity-not-set main.tf:8:10 aws_iam_user.a: identity argument `name` of `aws_iam_user.a` is null"#]],
    );
}

#[test]
fn lint_impure_identity() {
    // Through a local, and directly: both are impure.
    lint(
        &format!(
            r#"{LIVE}locals {{
  suffix = uuid()
}}
resource "aws_s3_bucket" "b" {{
  bucket = "acme-${{local.suffix}}"
}}
resource "aws_iam_user" "u" {{
  name = "user-${{timestamp()}}"
}}
"#
        ),
        expect![[r#"
            impure-identity main.tf:11:10 aws_iam_user.u: identity argument `name` of `aws_iam_user.u` is derived from uuid() or timestamp()
            impure-identity main.tf:8:12 aws_s3_bucket.b: identity argument `bucket` of `aws_s3_bucket.b` is derived from uuid() or timestamp()"#]],
    );
}

#[test]
fn lint_duplicate_identity() {
    lint(
        &format!(
            "{LIVE}resource \"aws_s3_bucket\" \"a\" {{\n  bucket = \"acme-data\"\n}}\nresource \"aws_s3_bucket\" \"b\" {{\n  bucket = \"acme-${{\"data\"}}\"\n}}\n"
        ),
        expect![[
            r#"duplicate-identity main.tf:7:1 aws_s3_bucket.b: `aws_s3_bucket.b` and `aws_s3_bucket.a` both declare aws_s3_bucket "acme-data""#
        ]],
    );
}

#[test]
fn lint_marker_in_config() {
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"v\" {{\n  cidr_block = \"10.0.0.0/16\"\n  tags       = merge({{ Name = \"x\" }}, {{ \"tofu-estate\" = \"other\" }})\n}}\n"
        ),
        expect![
            "marker-in-config main.tf:6:40 aws_vpc.v: `aws_vpc.v` sets the tag `tofu-estate`, which is an ownership marker"
        ],
    );
}

#[test]
fn lint_ignore_tags_markers_is_a_warning_for_a_marker_key_or_a_covering_prefix() {
    lint(
        &format!(
            r#"{LIVE}provider "aws" {{
  region = "us-east-1"
  ignore_tags {{
    keys         = ["LastScanned", "tofu-estate"]
    key_prefixes = ["kubernetes.io/", "tofu", "tofu-address-", "team-"]
  }}
}}
resource "aws_vpc" "v" {{
  cidr_block = "10.0.0.0/16"
}}
"#
        ),
        expect![[r#"
            ignore-tags-markers main.tf:7:20: `ignore_tags` of the provider configuration `aws` names the key `tofu-estate`, which is an ownership marker
            ignore-tags-markers main.tf:8:20: `ignore_tags` of the provider configuration `aws` names the prefix `tofu-address-`, which covers the ownership markers
            ignore-tags-markers main.tf:8:20: `ignore_tags` of the provider configuration `aws` names the prefix `tofu`, which covers the ownership markers"#]],
    );
}

#[test]
fn lint_marker_in_default_tags() {
    lint(
        &format!(
            r#"{LIVE}provider "aws" {{
  alias  = "west"
  region = "us-east-1"
  default_tags {{
    tags = {{ Team = "net", "tofu-estate" = "other" }}
  }}
}}
resource "aws_vpc" "v" {{
  provider   = aws.west
  cidr_block = "10.0.0.0/16"
}}
"#
        ),
        expect![
            "marker-in-config main.tf:8:12: the default tags of the provider configuration `aws.west` set the tag `tofu-estate`, which is an ownership marker"
        ],
    );
}

#[test]
fn lint_ignore_changes_markers() {
    lint(
        &format!(
            "{LIVE}resource \"aws_vpc\" \"v\" {{\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {{\n    ignore_changes = [tags, tags[\"tofu-slot\"], tags[\"Name\"]]\n  }}\n}}\nresource \"aws_vpc\" \"w\" {{\n  cidr_block = \"10.1.0.0/16\"\n  lifecycle {{\n    ignore_changes = all\n  }}\n}}\n"
        ),
        expect![
            "ignore-changes-markers main.tf:7:29 aws_vpc.v: `ignore_changes` covers the marker tag `tofu-slot`, which holds the ownership markers"
        ],
    );
}

#[test]
fn lint_expands_count_and_for_each_with_static_identities() {
    let main = format!(
        r#"{LIVE}
variable "env" {{
  default = "prod"
}}
resource "aws_iam_user" "u" {{
  count = 2
  name  = "${{var.env}}-user-${{count.index + 1}}"
}}
resource "aws_subnet" "s" {{
  for_each   = {{ a = "10.0.1.0/24", b = "10.0.2.0/24" }}
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
}}
resource "aws_vpc" "main" {{
  cidr_block = "10.0.0.0/16"
}}
resource "aws_route" "r" {{
  route_table_id         = aws_route_table.t.id
  destination_cidr_block = "0.0.0.0/0"
}}
resource "aws_route_table" "t" {{
  vpc_id = aws_vpc.main.id
}}
"#
    );
    let inputs = VariableInputs {
        env: BTreeMap::from([("TF_VAR_env".into(), "dev".into())]),
        ..Default::default()
    };
    let files = [SourceFile::new("main.tf", main)];
    let (_, linted) = check(
        &admission::Sources::new(&files, &inputs),
        &crate::contract(),
    );
    assert_eq!(linted.diagnostics, vec![]);
    assert_eq!(linted.estate.as_deref(), Some("acme"));
    let shown: Vec<String> = linted
        .instances
        .iter()
        .map(|i| {
            let identity: Vec<String> = i
                .identity
                .iter()
                .map(|(k, v)| format!("{k}={v:?}"))
                .collect();
            let statics: Vec<String> = i
                .static_values
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!(
                "{} {} [{}] {{{}}}",
                i.address,
                i.admission,
                identity.join(" "),
                statics.join(" ")
            )
        })
        .collect();
    expect![[r#"
        aws_iam_user.u[0] client-named [name=Static(String("dev-user-1"))] {name="dev-user-1"}
        aws_iam_user.u[1] client-named [name=Static(String("dev-user-2"))] {name="dev-user-2"}
        aws_route.r parent-derived [route_table_id=FromParent destination_cidr_block=Static(String("0.0.0.0/0"))] {destination_cidr_block="0.0.0.0/0"}
        aws_route_table.t marker [] {}
        aws_subnet.s["a"] marker [] {cidr_block="10.0.1.0/24"}
        aws_subnet.s["b"] marker [] {cidr_block="10.0.2.0/24"}
        aws_vpc.main marker [] {cidr_block="10.0.0.0/16"}"#]]
    .assert_eq(&shown.join("\n"));
}

#[test]
fn lint_reports_each_problem_once_and_every_distinct_one() {
    lint(
        &format!(
            r#"{LIVE}resource "aws_vpc" "v" {{
  count      = 3
  cidr_block = 1 + "x"
  colour     = "blue"
}}
resource "aws_route" "r" {{
}}
resource "aws_subnet" "s" {{
  for_each   = toset(["a", "b"])
  vpc_id     = var.nope
  cidr_block = "10.0.0.0/24"
}}
locals {{
  unused = upper([1])
}}
"#
        ),
        expect![[r#"
            identity-not-set main.tf:9:1 aws_route.r: identity argument `destination_cidr_block` of `aws_route.r` is not set
            identity-not-set main.tf:9:1 aws_route.r: identity argument `route_table_id` of `aws_route.r` is not set
            invalid-argument main.tf:7:3 aws_vpc.v[0]: Unsupported argument: `aws_vpc` has no argument `colour`
            invalid-expression main.tf:6:20 aws_vpc.v[0]: Invalid operand: "x" is not a number
            invalid-function-argument main.tf:17:12: invalid function argument: upper(): a string is required
            unknown-reference main.tf:13:16 aws_subnet.s: variable `nope` is not declared"#]],
    );
}

#[test]
fn lint_unknown_reference_to_a_repeated_block_without_an_instance_key() {
    lint(
        &format!(
            r#"{LIVE}resource "aws_vpc" "v" {{
  count      = 2
  cidr_block = "10.0.0.0/16"
}}
resource "aws_subnet" "s" {{
  for_each   = toset(["a"])
  vpc_id     = aws_vpc.v.id
  cidr_block = "10.0.0.0/24"
}}
output "subnets" {{
  value = [aws_subnet.s.arn, aws_vpc.v[*].id, aws_vpc.v[0].id, [for s in aws_subnet.s : s.id]]
}}
"#
        ),
        expect![[r#"
            unknown-reference main.tf:14:12: `aws_subnet.s` has several instances: pick one (`aws_subnet.s["key"].arn`) or all (`aws_subnet.s[*].arn`)
            unknown-reference main.tf:10:16 aws_subnet.s: `aws_vpc.v` has several instances: pick one (`aws_vpc.v[0].id`) or all (`aws_vpc.v[*].id`)"#]],
    );
}

#[test]
fn lint_errors_never_quote_a_sensitive_value() {
    let main = format!(
        "{LIVE}variable \"token\" {{\n  type      = number\n  sensitive = true\n}}\nvariable \"word\" {{\n  type      = string\n  sensitive = true\n}}\nresource \"aws_s3_bucket\" \"b\" {{\n  bucket = \"x\"\n  tags   = {{ n = tonumber(var.word) }}\n}}\n"
    );
    let inputs = VariableInputs {
        cli: vec![
            VarInput::Var("token=s3ntinel-1".into()),
            VarInput::Var("word=s3ntinel-2".into()),
        ],
        ..Default::default()
    };
    check_with(
        &main,
        inputs,
        None,
        expect![[r#"
            invalid-function-argument main.tf:14:18 aws_s3_bucket.b: invalid function argument: tonumber() cannot use its (sensitive) arguments
            invalid-variable: `--var token` does not fit type number: a number is required"#]],
    );
}

/// F13: each error path that quoted a sensitive value says `(sensitive)` instead: a CIDR prefix, a map
/// key, a `lookup()` key, a list index, a duplicate `for` key, and a value outside its allowed set.
#[test]
fn lint_errors_of_functions_keys_and_allowed_values_never_quote_a_sensitive_value() {
    let main = format!(
        r#"{LIVE}variable "secret" {{
  type      = string
  default   = "s3ntinel-9"
  sensitive = true
}}
variable "n" {{
  type      = number
  default   = 7
  sensitive = true
}}
locals {{
  m = {{ a = "x" }}
}}
resource "aws_vpc" "v" {{
  cidr_block = cidrsubnet(var.secret, 8, 1)
}}
resource "terraform_data" "key" {{
  input = local.m[var.secret]
}}
resource "terraform_data" "lookup" {{
  input = lookup(local.m, var.secret)
}}
resource "terraform_data" "index" {{
  input = ["a"][var.n]
}}
resource "terraform_data" "dup" {{
  input = {{ for x in ["a", "b"] : var.secret => x }}
}}
resource "aws_s3_bucket_versioning" "v" {{
  bucket = "b"
  versioning_configuration {{
    status = var.secret
  }}
}}
"#
    );
    check_with(
        &main,
        VariableInputs::default(),
        None,
        expect![[r#"
            invalid-argument main.tf:34:3 aws_s3_bucket_versioning.v: Invalid value: "versioning_configuration.status" is (sensitive); expected one of Enabled, Suspended
            invalid-expression main.tf:30:35 terraform_data.dup: Duplicate object key: duplicate key (sensitive) in a `for` expression (add `...` to group)
            invalid-expression main.tf:27:17 terraform_data.index: Invalid index: index (sensitive) is out of range for a list of 1 element(s)
            invalid-expression main.tf:21:19 terraform_data.key: Invalid index: the map has no key (sensitive)
            invalid-function-argument main.tf:18:16 aws_vpc.v: invalid function argument: cidrsubnet() cannot use its (sensitive) arguments
            invalid-function-argument main.tf:24:11 terraform_data.lookup: invalid function argument: lookup(): lookup failed to find the (sensitive) key"#]],
    );
}

#[test]
fn lint_dependency_cycle() {
    lint(
        &format!(
            r#"{LIVE}resource "aws_vpc" "a" {{
  cidr_block = aws_vpc.b.cidr_block
}}
resource "aws_vpc" "b" {{
  cidr_block = aws_vpc.a.cidr_block
}}
resource "aws_subnet" "reads_the_cycle" {{
  vpc_id     = aws_vpc.a.id
  cidr_block = "10.0.1.0/24"
}}
resource "aws_subnet" "s" {{
  count      = 2
  vpc_id     = "vpc-1"
  cidr_block = aws_subnet.s[0].cidr_block
}}
resource "aws_vpc" "waits" {{
  cidr_block = "10.9.0.0/16"
  depends_on = [aws_vpc.waits]
}}
locals {{
  z_id = aws_vpc.z.id
}}
resource "aws_vpc" "y" {{
  cidr_block = "10.2.0.0/16"
  tags       = {{ Peer = local.z_id }}
}}
resource "aws_vpc" "x" {{
  cidr_block = "10.3.0.0/16"
  tags       = {{ Peer = aws_vpc.y.id }}
}}
resource "aws_vpc" "z" {{
  cidr_block = "10.1.0.0/16"
  depends_on = [aws_vpc.x]
}}
"#
        ),
        expect![[r#"
            dependency-cycle main.tf:17:16 aws_subnet.s: `aws_subnet.s` refers to itself
            dependency-cycle main.tf:5:16 aws_vpc.a: dependency cycle between `aws_vpc.a` and `aws_vpc.b`
            dependency-cycle main.tf:21:17 aws_vpc.waits: `aws_vpc.waits` refers to itself
            dependency-cycle main.tf:28:25 aws_vpc.y: dependency cycle between `aws_vpc.y`, `aws_vpc.x` and `aws_vpc.z`"#]],
    );
}

#[test]
fn lint_arguments_convert_to_their_types_as_in_terraform() {
    // Strings of `true`/`false` are bools and numbers are strings, as Terraform converts them; what does not
    // convert is an error naming the argument and never the value (it may be a secret).
    lint(
        &format!(
            r#"{LIVE}variable "token" {{
  default   = "s3cr3t"
  sensitive = true
}}
resource "aws_vpc" "converts" {{
  cidr_block           = "10.0.0.0/16"
  enable_dns_support   = "false"
  enable_dns_hostnames = true
}}
resource "aws_cloudwatch_log_group" "converts" {{
  name              = 42
  retention_in_days = "7"
  tags              = {{ Cost = 12, Owner = "ops" }}
}}
resource "aws_vpc" "refused" {{
  cidr_block           = "10.1.0.0/16"
  enable_dns_support   = var.token
  enable_dns_hostnames = 1
}}
resource "aws_cloudwatch_log_group" "refused" {{
  name              = "logs"
  retention_in_days = "a week"
  tags              = {{ Owner = ["ops"] }}
}}
"#
        ),
        expect![[r#"
            invalid-argument main.tf:25:3 aws_cloudwatch_log_group.refused: Incorrect attribute value type: inappropriate value for `retention_in_days`: a number is required
            invalid-argument main.tf:26:3 aws_cloudwatch_log_group.refused: Incorrect attribute value type: inappropriate value for `tags`: ["Owner"]: a list is not a string
            invalid-argument main.tf:20:3 aws_vpc.refused: Incorrect attribute value type: inappropriate value for `enable_dns_support`: true or false is required
            invalid-argument main.tf:21:3 aws_vpc.refused: Incorrect attribute value type: inappropriate value for `enable_dns_hostnames`: a number is not a bool"#]],
    );
}

#[test]
fn lint_count_from_an_untyped_variable_given_as_text_is_a_number() {
    // `--var subnets=3` or `TF_VAR_subnets=3` reaches an untyped variable as the string "3"; Terraform
    // converts it for `count`, and so does the lint. Text that is not a whole number is still refused.
    let main = format!(
        r#"{LIVE}
variable "subnets" {{}}
resource "aws_vpc" "v" {{
  count      = var.subnets
  cidr_block = "10.${{count.index}}.0.0/16"
}}
resource "aws_vpc" "w" {{
  count      = "two"
  cidr_block = "10.9.0.0/16"
}}
"#
    );
    let inputs = VariableInputs {
        env: BTreeMap::from([("TF_VAR_subnets".into(), "3".into())]),
        ..Default::default()
    };
    let linted = crate::lint_main(&main, &inputs);
    let codes: Vec<String> = linted
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.summary))
        .collect();
    assert_eq!(
        codes,
        [
            "invalid-argument Invalid count argument: `count` of `aws_vpc.w` must be a whole number of at least 0, not \"two\""
        ]
    );
    let addresses: Vec<String> = linted
        .instances
        .iter()
        .map(|i| i.address.to_string())
        .collect();
    assert_eq!(addresses, ["aws_vpc.v[0]", "aws_vpc.v[1]", "aws_vpc.v[2]"]);
}

#[test]
fn lint_a_var_flag_for_an_undeclared_variable_says_how_to_declare_it() {
    let inputs = VariableInputs {
        cli: vec![VarInput::Var("subnet_cuont=4".into())],
        ..Default::default()
    };
    let linted = crate::lint_main(LIVE, &inputs);
    let shown: Vec<String> = linted
        .diagnostics
        .iter()
        .map(|d| format!("{} {}: {}", d.code, d.summary, d.detail))
        .collect();
    assert_eq!(
        shown,
        [
            "invalid-variable `--var subnet_cuont` sets a variable that is not declared: declare it with a \
             `variable \"subnet_cuont\" {}` block, or fix the name on the command line"
        ]
    );
}
