//! Variables as Terraform 1.9 types and checks them (`optional()` attributes, `nullable`, `validation`,
//! reserved and invalid names), outputs, lifecycle conditions, `replace_triggered_by`, `check` blocks and
//! `ignore_changes` on the tags, through `check` (a plan's view) and `validate` (no variable values needed).

use std::collections::BTreeMap;

use admission::{SourceFile, VarInput, VariableInputs, check, validate};
use expect_test::{Expect, expect};

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

/// Renders every diagnostic as `code file:line:col address: summary`.
fn render(diags: &[admission::Diagnostic]) -> String {
    crate::diagnostic_lines(diags)
}

/// The diagnostics a plan's lint gives `main.tf` (after the `live` block) with `vars` as `--var`s.
fn plan_lint(main: &str, vars: &[&str], expect: Expect) {
    let files = [SourceFile::new("main.tf", format!("{LIVE}{main}"))];
    let inputs = VariableInputs {
        cli: vars.iter().map(|v| VarInput::Var(v.to_string())).collect(),
        ..VariableInputs::default()
    };
    let (_, linted) = check(
        &admission::Sources::new(&files, &inputs),
        &crate::contract(),
    );
    expect.assert_eq(&render(&linted.diagnostics));
}

/// The diagnostics `validate` gives `main.tf` (after the `live` block), with no variable values.
fn validate_lint(main: &str, expect: Expect) {
    let files = [SourceFile::new("main.tf", format!("{LIVE}{main}"))];
    let inputs = VariableInputs::default();
    let (_, linted) = validate(
        &admission::Sources::new(&files, &inputs),
        &crate::contract(),
    );
    expect.assert_eq(&render(&linted.diagnostics));
}

/// The resolved variables of `main.tf` with `vars` as `--var`s and `tfvars` as terraform.tfvars, and the
/// diagnostics.
fn resolved(main: &str, tfvars: &str, vars: &[&str], expect: Expect) {
    let (config, diags) = admission::parse_config(&[SourceFile::new("main.tf", main)]);
    assert_eq!(render(&diags), "");
    let inputs = VariableInputs {
        env: BTreeMap::new(),
        auto_files: vec![SourceFile::new("terraform.tfvars", tfvars)],
        cli: vars.iter().map(|v| VarInput::Var(v.to_string())).collect(),
    };
    let (values, diags) = admission::resolve_variables(&config, &inputs);
    let mut out: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    if !diags.is_empty() {
        out.push(render(&diags));
    }
    expect.assert_eq(&out.join("\n"));
}

const SERVICE: &str = r#"
variable "service" {
  type = object({
    name     = string
    port     = optional(number, 443)
    protocol = optional(string)
    health   = optional(object({
      path     = optional(string, "/health")
      interval = optional(number, 30)
    }), {})
  })
}
"#;

#[test]
fn config_conditions_optional_attributes_take_their_defaults_from_every_source() {
    // From a var file: the left-out attributes take their defaults, nested ones too (the default `{}`
    // of `health` is converted in turn); `protocol` has no default and is null.
    resolved(
        SERVICE,
        "service = { name = \"api\" }\n",
        &[],
        expect![[
            r#"service = { health = { interval = 30, path = "/health" }, name = "api", port = 443, protocol = null }"#
        ]],
    );
    // From --var, with a value given for a nested attribute and an explicit null, which takes the default.
    resolved(
        SERVICE,
        "",
        &[r#"service={ name = "web", port = null, health = { interval = 5 } }"#],
        expect![[
            r#"service = { health = { interval = 5, path = "/health" }, name = "web", port = 443, protocol = null }"#
        ]],
    );
    // A required attribute left out is refused, naming it and never quoting the value.
    resolved(
        SERVICE,
        "",
        &[r#"service={ port = 80 }"#],
        expect![[
            r#"invalid-variable: `--var service` does not fit type object({health=optional(object({interval=optional(number),path=optional(string)})),name=string,port=optional(number),protocol=optional(string)}): attribute "name" is required"#
        ]],
    );
}

#[test]
fn config_conditions_optional_defaults_apply_inside_collections_and_to_the_default() {
    resolved(
        r#"
variable "rules" {
  type = list(object({
    port = number
    cidr = optional(string, "0.0.0.0/0")
  }))
  default = [{ port = 80 }, { port = 443, cidr = "10.0.0.0/8" }]
}
"#,
        "",
        &[],
        expect![[
            r#"rules = [{ cidr = "0.0.0.0/0", port = 80 }, { cidr = "10.0.0.0/8", port = 443 }]"#
        ]],
    );
}

#[test]
fn config_conditions_nullable_false_makes_null_take_the_default() {
    resolved(
        r#"
variable "env" {
  type     = string
  default  = "dev"
  nullable = false
}
variable "owner" {
  type     = string
  nullable = false
}
variable "free" {
  type    = string
  default = "x"
}
"#,
        "env = null\nowner = null\nfree = null\n",
        &[],
        expect![[r#"
            env = "dev"
            free = null
            invalid-variable main.tf:7:1: variable `owner` must not be null"#]],
    );
}

const VALIDATED: &str = r#"
variable "env" {
  type = string
  validation {
    condition     = contains(["dev", "prod"], var.env)
    error_message = "env must be dev or prod."
  }
}
variable "cidr" {
  type    = string
  default = "10.0.0.0/16"
  validation {
    condition     = can(cidrhost(var.cidr, 0))
    error_message = "cidr must be an IPv4 CIDR block."
  }
  validation {
    condition     = endswith(var.cidr, "/16")
    error_message = "cidr must be a /16, not ${var.cidr}."
  }
}
variable "token" {
  type      = string
  default   = "a-long-enough-token"
  sensitive = true
  validation {
    condition     = length(var.token) > 10
    error_message = "token ${var.token} is too short."
  }
}
"#;

#[test]
fn config_conditions_a_failing_validation_reports_its_error_message() {
    plan_lint(
        VALIDATED,
        &["env=test", "cidr=10.1.0.0/24", "token=s3cr3t"],
        expect![[r#"
            invalid-variable main.tf:7:3: env must be dev or prod.
            invalid-variable main.tf:19:3: cidr must be a /16, not 10.1.0.0/24.
            invalid-variable main.tf:28:3: the error message includes a sensitive value, so it is not displayed"#]],
    );
    // Values that pass give no diagnostic.
    plan_lint(VALIDATED, &["env=prod"], expect![""]);
}

#[test]
fn config_conditions_validate_needs_no_variable_values() {
    // `terraform validate` checks a configuration whatever its variables: a required variable without a
    // value is unknown, its validation is not judged, and what a plan needs known (`count`, `for_each`,
    // an identity) is left to the plan.
    let main = format!(
        r#"{VALIDATED}
variable "names" {{
  type = set(string)
}}
variable "replicas" {{
  type = number
}}
resource "aws_s3_bucket" "b" {{
  for_each = var.names
  bucket   = "acme-${{each.key}}"
}}
resource "aws_vpc" "v" {{
  count      = var.replicas
  cidr_block = var.cidr
}}
"#
    );
    validate_lint(&main, expect![""]);
    // A plan needs them.
    plan_lint(
        &main,
        &[],
        expect![[r#"
            invalid-variable main.tf:5:1: variable `env` is required and has no value
            invalid-variable main.tf:34:1: variable `names` is required and has no value
            invalid-variable main.tf:37:1: variable `replicas` is required and has no value"#]],
    );
}

#[test]
fn config_conditions_validate_checks_blocks_that_expand_to_nothing() {
    // An error inside a `count = 0` block, an empty `for_each` or one not known at validate is still
    // reported, as Terraform reports it.
    validate_lint(
        r#"
variable "names" {
  type = set(string)
}
resource "aws_s3_bucket" "off" {
  count  = 0
  bucket = "acme-${upper(1, 2)}"
}
resource "aws_s3_bucket" "none" {
  for_each = toset([])
  bucket   = "acme-${each.key}"
  nope     = true
}
resource "aws_s3_bucket" "later" {
  for_each = var.names
  bucket   = local.missing
}
"#,
        expect![[r#"
            invalid-argument main.tf:15:3 aws_s3_bucket.none: Unsupported argument: `aws_s3_bucket` has no argument `nope`
            invalid-function-argument main.tf:10:20 aws_s3_bucket.off: invalid function argument: upper(): takes 1 argument(s), 2 given
            unknown-reference main.tf:19:14 aws_s3_bucket.later: local `missing` is not declared"#]],
    );
}

#[test]
fn config_conditions_reserved_and_invalid_names_are_refused() {
    plan_lint(
        r#"
variable "count" {
  default = 1
}
variable "source" {
  default = "x"
}
variable "for_each" {}
variable "depends_on" {}
variable "providers" {}
variable "version" {}
variable "lifecycle" {}
variable "locals" {}
variable "1x" {}
variable "a b" {}
output "a b" {
  value = 1
}
variable "ok_name-2" {
  default = 1
}
"#,
        &[],
        expect![[r#"
            invalid-name main.tf:5:1: invalid variable name `count`
            invalid-name main.tf:8:1: invalid variable name `source`
            invalid-name main.tf:11:1: invalid variable name `for_each`
            invalid-name main.tf:12:1: invalid variable name `depends_on`
            invalid-name main.tf:13:1: invalid variable name `providers`
            invalid-name main.tf:14:1: invalid variable name `version`
            invalid-name main.tf:15:1: invalid variable name `lifecycle`
            invalid-name main.tf:16:1: invalid variable name `locals`
            invalid-name main.tf:17:1: invalid variable name `1x`
            invalid-name main.tf:18:1: invalid variable name `a b`
            invalid-name main.tf:19:1: invalid output name `a b`"#]],
    );
}

#[test]
fn config_conditions_an_output_of_a_sensitive_value_must_say_so() {
    plan_lint(
        r#"
variable "password" {
  type      = string
  default   = "hunter2"
  sensitive = true
}
output "leak" {
  value = "pw: ${var.password}"
}
output "ok" {
  value       = var.password
  sensitive   = true
  description = "the password"
}
output "plain" {
  value      = nonsensitive(var.password) != ""
  depends_on = [aws_vpc.missing]
  precondition {
    condition     = var.password != ""
    error_message = "a password is required"
  }
}
"#,
        &[],
        expect![[r#"
            sensitive-output main.tf:10:1: output `leak` refers to sensitive values
            unknown-reference main.tf:20:17: `depends_on` names `aws_vpc.missing`, which is not declared"#]],
    );
}

#[test]
fn config_conditions_an_output_of_a_sensitive_variable_must_say_so() {
    // expressions.md #401 (the variable itself) and #402 (a value derived from it): Terraform refuses
    // both with "Output refers to sensitive values" unless the output is declared sensitive.
    plan_lint(
        r#"
variable "s" {
  default   = "x"
  sensitive = true
}
output "direct" {
  value = var.s
}
output "derived" {
  value = "${var.s}-y"
}
output "in_a_list" {
  value = [var.s]
}
output "declared" {
  value     = "${var.s}-y"
  sensitive = true
}
"#,
        &[],
        expect![[r#"
            sensitive-output main.tf:9:1: output `direct` refers to sensitive values
            sensitive-output main.tf:12:1: output `derived` refers to sensitive values
            sensitive-output main.tf:15:1: output `in_a_list` refers to sensitive values"#]],
    );
}

#[test]
fn config_conditions_an_output_of_a_sensitive_resource_attribute_must_say_so() {
    // An access key's `secret` is sensitive in the provider's schema: an output of it is refused before
    // the key exists, as Terraform refuses it, however the instance is reached.
    plan_lint(
        r#"
resource "aws_iam_user" "ci" {
  name = "ci"
}
resource "aws_iam_access_key" "ci" {
  user = aws_iam_user.ci.name
}
resource "aws_iam_access_key" "many" {
  count = 2
  user  = aws_iam_user.ci.name
}
output "secret" {
  value = aws_iam_access_key.ci.secret
}
output "in_a_map" {
  value = { id = aws_iam_access_key.ci.id, secret = aws_iam_access_key.ci.secret }
}
output "one_of_many" {
  value = aws_iam_access_key.many[1].secret
}
output "all_of_many" {
  value = aws_iam_access_key.many[*].secret
}
output "declared" {
  value     = aws_iam_access_key.ci.secret
  sensitive = true
}
output "key_id" {
  value = aws_iam_access_key.ci.id
}
"#,
        &[],
        expect![[r#"
            sensitive-output main.tf:15:1: output `secret` refers to sensitive values
            sensitive-output main.tf:18:1: output `in_a_map` refers to sensitive values
            sensitive-output main.tf:21:1: output `one_of_many` refers to sensitive values
            sensitive-output main.tf:24:1: output `all_of_many` refers to sensitive values"#]],
    );
}

#[test]
fn config_conditions_lifecycle_conditions_and_triggers_are_checked_for_references() {
    plan_lint(
        r#"
resource "aws_vpc" "v" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    precondition {
      condition     = var.nope != ""
      error_message = "x"
    }
    postcondition {
      condition     = self.cidr_block != "" && length(1) > 0
      error_message = "the VPC needs a range"
    }
    replace_triggered_by = [aws_subnet.gone.id, terraform_data.t]
  }
}
resource "terraform_data" "t" {
  input = "x"
}
resource "aws_subnet" "s" {
  vpc_id     = aws_vpc.v.id
  cidr_block = "10.0.1.0/24"
  lifecycle {
    replace_triggered_by = [var.x]
  }
}
"#,
        &[],
        expect![[r#"
            invalid-argument main.tf:26:29: Invalid value: `replace_triggered_by` entries must reference a managed resource or its attributes
            invalid-function-argument main.tf:13:48 aws_vpc.v: invalid function argument: length(): argument must be a string, a collection type, or a structural type
            unknown-reference main.tf:9:23 aws_vpc.v: variable `nope` is not declared
            unknown-reference main.tf:16:29 aws_vpc.v: `replace_triggered_by` names `aws_subnet.gone`, which is not declared"#]],
    );
}

#[test]
fn config_conditions_check_blocks_parse_and_their_references_are_checked() {
    plan_lint(
        r#"
check "health" {
  assert {
    condition     = aws_vpc.v.cidr_block != ""
    error_message = "the VPC has no range"
  }
}
check "scoped" {
  data "http" "site" {
    url = "https://example.com"
  }
  assert {
    condition     = local.missing
    error_message = "x"
  }
}
check "empty" {}
resource "aws_vpc" "v" {
  cidr_block = "10.0.0.0/16"
}
"#,
        &[],
        expect![[r#"
            invalid-block main.tf:20:1: Missing required block: check `empty` has no `assert` block
            unknown-reference main.tf:16:21: local `missing` is not declared
            unsupported-construct main.tf:12:3: a scoped `data` block in a `check` block is not supported"#]],
    );
}

#[test]
fn config_conditions_ignore_changes_on_the_tags_is_accepted_but_never_on_a_marker_key() {
    plan_lint(
        r#"
resource "aws_vpc" "a" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    ignore_changes = all
  }
}
resource "aws_vpc" "b" {
  cidr_block = "10.1.0.0/16"
  lifecycle {
    ignore_changes = [tags, tags_all]
  }
}
resource "aws_vpc" "c" {
  cidr_block = "10.2.0.0/16"
  lifecycle {
    ignore_changes = [tags["tofu-estate"]]
  }
}
"#,
        &[],
        expect![[
            r#"ignore-changes-markers main.tf:20:23 aws_vpc.c: `ignore_changes` covers the marker tag `tofu-estate`, which holds the ownership markers"#
        ]],
    );
}

#[test]
fn config_conditions_optional_outside_an_object_and_bad_conditions_are_refused() {
    plan_lint(
        r#"
variable "a" {
  type = optional(string)
}
variable "b" {
  type = object({ x = optional(string, "d", "e") })
}
variable "c" {
  default = 1
  validation {
    condition = var.c > 0
  }
}
variable "d" {
  default = "x"
  validation {
    condition     = var.d
    error_message = "d"
  }
}
"#,
        &[],
        expect![[r#"
            invalid-argument main.tf:6:10: Invalid type specification: `optional(...)` is allowed only for an attribute of an object type
            invalid-argument main.tf:9:23: Invalid type specification: `optional(...)` takes a type and an optional default
            invalid-argument main.tf:13:3: Missing required argument: `validation` block has no `error_message`
            invalid-variable main.tf:20:21: the validation rule of variable `d` cannot be checked: Invalid condition result: the validation condition must be bool, not string"#]],
    );
}
