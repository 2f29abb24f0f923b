//! Cases modelled on the configuration loader's own test data of Terraform and OpenTofu
//! (`internal/configs/testdata`: which files must load and which must fail, and for what fault), each
//! written here in our own words. `validate` (no variable values) must accept the valid ones, or refuse
//! them only by a stateless rule or an unserved type; it must refuse the invalid ones for the fault
//! Terraform flags, with that fault's own code and words, and never call a user's mistake
//! `unsupported-construct`.

use admission::{Code, Severity, SourceFile, VariableInputs, validate};

/// What a case must give.
enum Outcome {
    /// No error (warnings with these codes allowed).
    Loads(&'static [&'static str]),
    /// Exactly these errors: each `(code, words the summary holds)`, in any order.
    Fails(&'static [(&'static str, &'static str)]),
}

use Outcome::{Fails, Loads};

struct Case {
    /// The folder or file of the loader's test data the case is modelled on.
    after: &'static str,
    files: &'static [(&'static str, &'static str)],
    outcome: Outcome,
}

/// The diagnostics `validate` gives for `files`, under the estate `suite`.
fn diagnostics(files: &[(&str, &str)]) -> Vec<admission::Diagnostic> {
    let files: Vec<SourceFile> = files.iter().map(|(n, t)| SourceFile::new(*n, *t)).collect();
    let inputs = VariableInputs::default();
    let sources = admission::Sources::new(&files, &inputs).with_estate(Some("suite"));
    let (_, linted) = validate(&sources, &crate::contract());
    linted.diagnostics
}

fn judge(case: &Case) -> Result<(), String> {
    let diags = diagnostics(case.files);
    let shown = || {
        diags
            .iter()
            .map(|d| format!("  {} {}", d.code, d.summary))
            .collect::<Vec<_>>()
            .join("\n")
    };
    match &case.outcome {
        Loads(warnings) => {
            let unexpected: Vec<_> = diags
                .iter()
                .filter(|d| {
                    d.code.severity() == Severity::Error || !warnings.contains(&d.code.as_str())
                })
                .collect();
            if !unexpected.is_empty() {
                return Err(format!("{}: must load, gave\n{}", case.after, shown()));
            }
            for w in *warnings {
                if !diags.iter().any(|d| d.code.as_str() == *w) {
                    return Err(format!(
                        "{}: must warn `{w}`, gave\n{}",
                        case.after,
                        shown()
                    ));
                }
            }
        }
        Fails(wanted) => {
            let errors: Vec<_> = diags
                .iter()
                .filter(|d| d.code.severity() == Severity::Error)
                .collect();
            let matches = |(code, words): &(&str, &str), d: &&admission::Diagnostic| {
                d.code.as_str() == *code && d.summary.contains(words)
            };
            let missing: Vec<_> = wanted
                .iter()
                .filter(|w| !errors.iter().any(|d| matches(w, d)))
                .collect();
            let extra: Vec<_> = errors
                .iter()
                .filter(|d| !wanted.iter().any(|w| matches(w, d)))
                .collect();
            if !missing.is_empty() || !extra.is_empty() {
                return Err(format!(
                    "{}: must fail with {wanted:?}, gave\n{}",
                    case.after,
                    shown()
                ));
            }
        }
    }
    Ok(())
}

const CASES: &[Case] = &[
    // ---- must load ----
    Case {
        after: "valid-files/variables.tf",
        files: &[(
            "main.tf",
            r#"
variable "region" {}
variable "instance_count" {
  type        = number
  description = "How many."
}
variable "tags" {
  type      = map(string)
  sensitive = true
}
variable "maybe" {
  type     = string
  nullable = true
  default  = null
}
variable "list_untyped" {
  type = list
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/required-providers.tf",
        files: &[(
            "versions.tf",
            r#"
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/required-version.tf",
        files: &[(
            "main.tf",
            "terraform {\n  required_version = \">= 1.3.0, < 2.0.0\"\n}\n",
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/backend.tf",
        files: &[(
            "backend.tf",
            r#"
terraform {
  backend "s3" {
    bucket = "team-state"
    key    = "network/terraform.tfstate"
    region = "eu-west-1"
  }
}
"#,
        )],
        outcome: Loads(&["backend-ignored"]),
    },
    Case {
        after: "valid-files/cloud.tf",
        files: &[(
            "main.tf",
            r#"
terraform {
  cloud {
    organization = "acme"
    workspaces {
      name = "network"
    }
  }
}
"#,
        )],
        outcome: Loads(&["backend-ignored"]),
    },
    Case {
        after: "valid-files/provider-configs.tf",
        files: &[(
            "main.tf",
            r#"
provider "aws" {
  region = "eu-west-1"
}
provider "aws" {
  alias  = "same_region"
  region = "eu-west-1"
}
resource "aws_vpc" "main" {
  provider   = aws.same_region
  cidr_block = "10.0.0.0/16"
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/object-optional-attrs.tf",
        files: &[(
            "main.tf",
            r#"
variable "network" {
  type = object({
    cidr    = string
    subnets = optional(number, 2)
    name    = optional(string)
  })
  default = { cidr = "10.0.0.0/16" }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/variable-validation-condition-crossref.tf",
        files: &[(
            "main.tf",
            r#"
variable "environment" {
  type = string
  validation {
    condition     = contains(["dev", "prod"], var.environment)
    error_message = "The environment must be dev or prod."
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/outputs.tf",
        files: &[(
            "main.tf",
            r#"
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
output "vpc_id" {
  description = "The VPC."
  value       = aws_vpc.main.id
  depends_on  = [aws_vpc.main]
  precondition {
    condition     = aws_vpc.main.cidr_block != ""
    error_message = "The VPC needs a CIDR block."
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/preconditions-postconditions.tf",
        files: &[(
            "main.tf",
            r#"
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    precondition {
      condition     = can(cidrhost("10.0.0.0/16", 0))
      error_message = "The CIDR block must be valid."
    }
    postcondition {
      condition     = self.cidr_block == "10.0.0.0/16"
      error_message = "The VPC came back with another block."
    }
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/resources.tf",
        files: &[(
            "main.tf",
            r#"
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags]
  }
}
resource "aws_subnet" "az" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
  depends_on = [aws_vpc.main]
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-modules/override-dynamic-block-base",
        files: &[(
            "main.tf",
            r#"
resource "aws_s3_bucket" "logs" {
  bucket = "acme-suite-logs"
}
resource "aws_s3_bucket_versioning" "logs" {
  bucket = aws_s3_bucket.logs.id
  dynamic "versioning_configuration" {
    for_each = ["Enabled"]
    content {
      status = versioning_configuration.value
    }
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-modules/override-variable",
        files: &[
            (
                "main.tf",
                "variable \"region\" {\n  default = \"eu-west-1\"\n}\n",
            ),
            (
                "override.tf",
                "variable \"region\" {\n  default = \"eu-central-1\"\n}\n",
            ),
        ],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-modules/override-ignore-changes",
        files: &[
            (
                "main.tf",
                "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
            ),
            (
                "main_override.tf",
                "resource \"aws_vpc\" \"main\" {\n  lifecycle {\n    ignore_changes = [tags]\n  }\n}\n",
            ),
        ],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/*.tf.json",
        files: &[(
            "main.tf.json",
            r#"{"resource": {"aws_vpc": {"main": {"cidr_block": "10.0.0.0/16"}}}, "output": {"cidr": {"value": "${aws_vpc.main.cidr_block}"}}}"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/checks",
        files: &[(
            "main.tf",
            r#"
variable "cidr" {
  default = "10.0.0.0/16"
}
check "cidr_is_private" {
  assert {
    condition     = startswith(var.cidr, "10.")
    error_message = "The CIDR block is not private."
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/resources.tf (replace_triggered_by)",
        files: &[(
            "main.tf",
            r#"
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
  lifecycle {
    replace_triggered_by = [aws_vpc.main.id]
  }
}
"#,
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/resources.tf (ignore_changes = all)",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {\n    ignore_changes = all\n  }\n}\n",
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "hcl specsuite structure/comments",
        files: &[("main.tf", "# nothing here\n// nor here\n/* or here */\n")],
        outcome: Loads(&[]),
    },
    Case {
        after: "hcl specsuite structure/blocks (one-line and empty)",
        files: &[(
            "main.tf",
            "locals { a = 1 }\nlocals {}\nvariable \"x\" {}\noutput \"a\" { value = local.a }\n",
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files names: hyphens and unicode",
        files: &[(
            "main.tf",
            "variable \"région-name\" {\n  default = \"x\"\n}\nresource \"aws_vpc\" \"main-vpc\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
        )],
        outcome: Loads(&[]),
    },
    Case {
        after: "valid-files/outputs.tf (sensitive)",
        files: &[(
            "main.tf",
            "variable \"token\" {\n  sensitive = true\n  default   = \"s3cr3t\"\n}\noutput \"token\" {\n  value     = var.token\n  sensitive = true\n}\n",
        )],
        outcome: Loads(&[]),
    },
    // ---- must fail, for the fault Terraform flags ----
    Case {
        after: "invalid-files/resource-count-and-for_each.tf",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  count      = 1\n  for_each   = toset([\"a\"])\n  cidr_block = \"10.0.0.0/16\"\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "sets both `count` and `for_each`")]),
    },
    Case {
        after: "invalid-files/variable-bad-sensitive.tf",
        files: &[("main.tf", "variable \"x\" {\n  sensitive = \"maybe\"\n}\n")],
        outcome: Fails(&[("invalid-argument", "`sensitive` must be `true` or `false`")]),
    },
    Case {
        after: "error-files/variable_type_quoted.tf",
        files: &[("main.tf", "variable \"x\" {\n  type = \"string\"\n}\n")],
        outcome: Fails(&[("invalid-argument", "remove the quotes")]),
    },
    Case {
        after: "error-files/ignore_changes.tf",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {\n    ignore_changes = [\"*\"]\n  }\n}\n",
        )],
        outcome: Fails(&[(
            "invalid-argument",
            "`ignore_changes` entries must be attribute paths",
        )]),
    },
    Case {
        after: "error-files/required-providers-toplevel.tf",
        files: &[(
            "main.tf",
            "required_providers {\n  aws = {\n    source = \"hashicorp/aws\"\n  }\n}\n",
        )],
        outcome: Fails(&[(
            "invalid-block",
            "`required_providers` are not expected here",
        )]),
    },
    Case {
        after: "invalid-files/resource-reserved-locals.tf",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  locals {\n    a = 1\n  }\n}\n",
        )],
        outcome: Fails(&[("unsupported-block-type", "`locals`")]),
    },
    Case {
        after: "invalid-files/variable reserved names (count, source)",
        files: &[(
            "main.tf",
            "variable \"count\" {\n  default = 1\n}\nvariable \"source\" {\n  default = \"x\"\n}\n",
        )],
        outcome: Fails(&[("invalid-name", "`count`"), ("invalid-name", "`source`")]),
    },
    Case {
        after: "invalid-files/variable name not an identifier",
        files: &[("main.tf", "variable \"1x\" {\n  default = 1\n}\n")],
        outcome: Fails(&[("invalid-name", "1x")]),
    },
    Case {
        after: "invalid-files/output name not an identifier",
        files: &[("main.tf", "output \"a b\" {\n  value = 1\n}\n")],
        outcome: Fails(&[("invalid-name", "a b")]),
    },
    Case {
        after: "invalid-files/output of a sensitive value",
        files: &[(
            "main.tf",
            "variable \"token\" {\n  sensitive = true\n  default   = \"s3cr3t\"\n}\noutput \"token\" {\n  value = var.token\n}\n",
        )],
        outcome: Fails(&[("sensitive-output", "token")]),
    },
    Case {
        after: "invalid-modules/override-nonexist-variable",
        files: &[
            ("main.tf", "variable \"a\" {\n  default = 1\n}\n"),
            ("override.tf", "variable \"b\" {\n  default = 2\n}\n"),
        ],
        outcome: Fails(&[("invalid-override", "\"b\" overrides nothing")]),
    },
    Case {
        after: "invalid-modules/duplicate resources across files",
        files: &[
            (
                "a.tf",
                "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
            ),
            (
                "b.tf",
                "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.1.0.0/16\"\n}\n",
            ),
        ],
        outcome: Fails(&[(
            "duplicate-declaration",
            "Duplicate resource declaration: resource `aws_vpc.main`",
        )]),
    },
    Case {
        after: "invalid-files/two lifecycle blocks",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {}\n  lifecycle {}\n}\n",
        )],
        outcome: Fails(&[("duplicate-declaration", "`lifecycle`")]),
    },
    Case {
        after: "invalid-files/duplicate locals",
        files: &[("main.tf", "locals {\n  a = 1\n}\nlocals {\n  a = 2\n}\n")],
        outcome: Fails(&[("duplicate-declaration", "local `a` is declared twice")]),
    },
    Case {
        after: "invalid-files/two default provider configurations",
        files: &[(
            "main.tf",
            "provider \"aws\" {\n  region = \"eu-west-1\"\n}\nprovider \"aws\" {\n  region = \"eu-west-2\"\n}\n",
        )],
        outcome: Fails(&[("duplicate-declaration", "provider")]),
    },
    Case {
        after: "invalid-files/for_each over a list",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  for_each   = [\"a\", \"b\"]\n  cidr_block = \"10.0.0.0/16\"\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "Invalid for_each argument")]),
    },
    Case {
        after: "invalid-files/each with no such attribute",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  for_each   = toset([\"10.0.0.0/16\"])\n  cidr_block = each.val\n}\n",
        )],
        outcome: Fails(&[("unknown-reference", "`each`")]),
    },
    Case {
        after: "invalid-files/resource reading itself",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = aws_vpc.main.cidr_block\n}\n",
        )],
        outcome: Fails(&[("dependency-cycle", "aws_vpc.main")]),
    },
    Case {
        after: "invalid-files/reference to an undeclared variable",
        files: &[("main.tf", "output \"x\" {\n  value = var.nope\n}\n")],
        outcome: Fails(&[("unknown-reference", "nope")]),
    },
    Case {
        after: "invalid-files/function called with too many arguments",
        files: &[("main.tf", "locals {\n  s = toset([\"a\"], [\"b\"])\n}\n")],
        outcome: Fails(&[("invalid-function-argument", "toset")]),
    },
    Case {
        after: "invalid-files/negative count",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  count      = -1\n  cidr_block = \"10.0.0.0/16\"\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "Invalid count argument")]),
    },
    Case {
        after: "invalid-files/depends_on naming an attribute",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"a\" {\n  cidr_block = \"10.0.0.0/16\"\n}\nresource \"aws_vpc\" \"b\" {\n  cidr_block = \"10.1.0.0/16\"\n  depends_on = [aws_vpc.a.id]\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "must name a whole resource")]),
    },
    Case {
        after: "invalid-files/variable-complex-bad-default-inner-obj.tf",
        files: &[(
            "main.tf",
            "variable \"x\" {\n  type    = object({ a = object({ b = number }) })\n  default = { a = { b = \"many\" } }\n}\n",
        )],
        outcome: Fails(&[("invalid-variable", "does not fit its type")]),
    },
    Case {
        after: "invalid-files/call to an unknown function",
        files: &[("main.tf", "locals {\n  a = frobnicate(1)\n}\n")],
        outcome: Fails(&[("invalid-expression", "Call to unknown function")]),
    },
    Case {
        after: "invalid-files/division by zero",
        files: &[("main.tf", "locals {\n  a = 1 / 0\n}\n")],
        outcome: Fails(&[("invalid-expression", "Operation failed: division by zero")]),
    },
    Case {
        after: "invalid-files/locals referring to each other",
        files: &[("main.tf", "locals {\n  a = local.b\n  b = local.a\n}\n")],
        outcome: Fails(&[
            ("invalid-expression", "refers to itself"),
            ("invalid-expression", "refers to itself"),
        ]),
    },
    Case {
        after: "invalid-files/precondition-postcondition-missing-condition.tf",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {\n    precondition {\n      error_message = \"x\"\n    }\n  }\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "Missing required argument")]),
    },
    Case {
        after: "invalid-files/check with no assert",
        files: &[("main.tf", "check \"empty\" {\n}\n")],
        outcome: Fails(&[("invalid-block", "has no `assert` block")]),
    },
    Case {
        after: "invalid-files/an argument at the top level",
        files: &[("main.tf", "region = \"eu-west-1\"\n")],
        outcome: Fails(&[(
            "invalid-argument",
            "`region` is not expected at the top level",
        )]),
    },
    Case {
        after: "invalid-files/resource with one label",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
        )],
        outcome: Fails(&[("invalid-block", "needs 2 label(s), found 1")]),
    },
    Case {
        after: "error-files/unused_attrs_experiment.tf (an unknown lifecycle argument)",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  lifecycle {\n    unused = [cidr_block]\n  }\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "Unsupported argument")]),
    },
    Case {
        after: "invalid-files/variable-validation-bad-msg.tf (no error_message)",
        files: &[(
            "main.tf",
            "variable \"x\" {\n  default = 1\n  validation {\n    condition = var.x > 0\n  }\n}\n",
        )],
        outcome: Fails(&[("invalid-argument", "has no `error_message`")]),
    },
    Case {
        after: "invalid-files/an unknown block type in a variable",
        files: &[("main.tf", "variable \"x\" {\n  check {}\n}\n")],
        outcome: Fails(&[("invalid-block", "`variable` has no block type `check`")]),
    },
    Case {
        after: "invalid-files/an unknown argument in a variable",
        files: &[("main.tf", "variable \"x\" {\n  defualt = 1\n}\n")],
        outcome: Fails(&[("invalid-argument", "`variable` has no argument `defualt`")]),
    },
    Case {
        after: "invalid-files/an unknown top-level block",
        files: &[("main.tf", "boundary \"x\" {\n}\n")],
        outcome: Fails(&[(
            "invalid-block",
            "blocks of type `boundary` are not expected here",
        )]),
    },
    Case {
        after: "error-files/unsupported_language_edition.tf (required_version unmet)",
        files: &[(
            "main.tf",
            "terraform {\n  required_version = \"< 1.0.0\"\n}\n",
        )],
        outcome: Fails(&[("required-version", "1.0.0")]),
    },
    Case {
        after: "invalid-modules/multiple-required-providers",
        files: &[
            (
                "a.tf",
                "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n  }\n}\n",
            ),
            (
                "b.tf",
                "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n  }\n}\n",
            ),
        ],
        outcome: Fails(&[("duplicate-declaration", "aws")]),
    },
    Case {
        after: "error-files/vendor_provisioners.tf (valid Terraform liveplan does not run)",
        files: &[(
            "main.tf",
            "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n  provisioner \"local-exec\" {\n    command = \"echo hi\"\n  }\n}\n",
        )],
        outcome: Fails(&[("unsupported-construct", "provisioner")]),
    },
    Case {
        after: "valid-files/resources.tf (a provider-defined function)",
        files: &[(
            "main.tf",
            "locals {\n  a = provider::aws::arn_parse(\"x\")\n}\n",
        )],
        outcome: Fails(&[("unsupported-construct", "provider-defined")]),
    },
];

#[test]
fn parser_suite_cases_load_or_fail_for_the_fault_terraform_flags() {
    assert!(CASES.len() >= 40, "{} cases", CASES.len());
    let failures: Vec<String> = CASES.iter().filter_map(|c| judge(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases wrong:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn parser_suite_user_mistakes_never_carry_the_unsupported_construct_code() {
    // Every failing case but the last two (valid Terraform that liveplan does not implement) is a mistake
    // Terraform refuses too.
    let mistakes = CASES
        .iter()
        .filter(|c| matches!(c.outcome, Fails(w) if w.iter().all(|(code, _)| *code != "unsupported-construct")));
    for case in mistakes {
        let diags = diagnostics(case.files);
        assert!(
            diags.iter().all(|d| d.code != Code::UnsupportedConstruct),
            "{}: {:?}",
            case.after,
            diags.iter().map(|d| &d.summary).collect::<Vec<_>>()
        );
    }
}
