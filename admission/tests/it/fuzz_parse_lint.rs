//! Malformed input never panics: parse, variable resolution and lint over random text, token soup and
//! mutations of a valid configuration that uses every construct of the subset.

use std::collections::BTreeMap;

use admission::{LintInput, check, lint};
use admission::{SourceFile, VarInput, VariableInputs, parse_config, resolve_variables};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config as ProptestConfig;

const SEED: &str = r#"live {
  estate = "acme-${var.env}"
  record_store "local" {
    path = ".liveplan/records"
  }
}
provider "sim" {
  region = "eu-west-1"
}
variable "env" {
  type    = string
  default = "prod"
}
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
variable "secret" {
  default   = "pw"
  sensitive = true
}
locals {
  tags  = merge({ Team = "net" }, { Env = var.env })
  cidrs = { for i, n in var.names : n => cidrsubnet("10.0.0.0/16", 8, i) }
}
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = local.tags
  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags["Name"]]
  }
}
resource "aws_subnet" "s" {
  for_each   = local.cidrs
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
  depends_on = [aws_vpc.main]
}
resource "aws_s3_bucket" "b" {
  count  = length(var.names) > 1 ? 2 : 1
  bucket = format("acme-%s-%d", var.env, count.index)
}
resource "aws_route" "r" {
  count                  = 2
  route_table_id         = aws_route_table.t[count.index].id
  destination_cidr_block = "0.0.0.0/0"
}
resource "aws_route_table" "t" {
  count  = 2
  vpc_id = aws_vpc.main.id
}
output "ids" {
  value     = [for s in aws_subnet.s : upper(s.id)]
  sensitive = true
}
"#;

const TOKENS: &[&str] = &[
    "resource",
    "variable",
    "locals",
    "output",
    "live",
    "provider",
    "module",
    "lifecycle",
    "count",
    "for_each",
    "\"aws_vpc\"",
    "\"x\"",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "=",
    "==",
    "!=",
    "?",
    ":",
    ",",
    ".",
    "...",
    "*",
    "+",
    "-",
    "/",
    "%",
    "&&",
    "||",
    "!",
    "<",
    ">=",
    "=>",
    "for",
    "in",
    "if",
    "var.env",
    "count.index",
    "each.key",
    "aws_vpc.main.id",
    "local.tags",
    "\"${",
    "}\"",
    "\"%{if",
    "%{endif}",
    "<<EOT\n",
    "\nEOT\n",
    "1",
    "0.5",
    "-7",
    "1e400",
    "true",
    "null",
    "\"tofu-estate\"",
    "uuid()",
    "timestamp()",
    "format(",
    "cidrsubnet(",
    "range(",
    "jsonencode(",
    "\n",
    " ",
    "#",
    "//",
    "/*",
    "*/",
    "\"\\u00e9\"",
    "é",
    "\t",
    "\"",
    "\\",
];

/// One edit of the seed: where, what kind, and what to insert.
#[derive(Debug, Clone)]
enum Mutation {
    Delete(Index, usize),
    Insert(Index, &'static str),
    Duplicate(Index, usize),
    Replace(Index, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<Index>(), 1usize..80).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (any::<Index>(), any::<char>()).prop_map(|(i, c)| Mutation::Replace(i, c)),
    ]
}

/// Applies edits at character positions, so the text stays valid UTF-8.
fn mutate(seed: &str, edits: &[Mutation]) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for edit in edits {
        let len = chars.len().max(1);
        match edit {
            Mutation::Delete(i, n) => {
                let at = i.index(len).min(chars.len());
                let end = (at + n).min(chars.len());
                chars.drain(at..end);
            }
            Mutation::Insert(i, t) => {
                let at = i.index(len + 1).min(chars.len());
                chars.splice(at..at, t.chars());
            }
            Mutation::Duplicate(i, n) => {
                let at = i.index(len).min(chars.len());
                let end = (at + n).min(chars.len());
                let copy: Vec<char> = chars[at..end].to_vec();
                chars.splice(end..end, copy);
            }
            Mutation::Replace(i, c) => {
                if !chars.is_empty() {
                    let at = i.index(chars.len());
                    chars[at] = *c;
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn input() -> impl Strategy<Value = String> {
    prop_oneof![
        // Random text over all of Unicode.
        2 => any::<String>(),
        // Random text over the characters HCL cares about.
        2 => "[a-z_ \"{}\\[\\]()=.,:?!<>+*/%$#\\n\\\\-]{0,120}",
        // Token soup: plausible fragments in random order.
        3 => prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.join(" ")),
        // The valid seed with a few edits.
        5 => prop::collection::vec(mutation(), 1..6).prop_map(|m| mutate(SEED, &m)),
    ]
}

/// Parse, resolve and lint `text` (as configuration, var file and variable values): must return, never
/// panic. Lint runs on whatever part of the configuration parsed, as `check` would not after a syntax error.
fn run(text: &str) {
    let contract = crate::contract();
    let (config, mut diags) = parse_config(&[SourceFile::new("main.tf", text)]);
    let inputs = VariableInputs {
        env: BTreeMap::from([("TF_VAR_names".to_string(), text.chars().take(40).collect())]),
        auto_files: vec![SourceFile::new("terraform.tfvars", text)],
        cli: vec![VarInput::Var(format!(
            "env={}",
            text.chars().take(20).collect::<String>()
        ))],
    };
    let (variables, var_diags) = resolve_variables(&config, &inputs);
    diags.extend(var_diags);
    let linted = lint(&LintInput {
        config: &config,
        variables: &variables,
        catalog: &contract,
        outside_estate: Some(admission::OutsideEstate::flag("acme")),
        mode: admission::VariableMode::Plan,
    });
    diags.extend(linted.diagnostics);
    for d in &diags {
        assert!(
            !d.summary.is_empty(),
            "a diagnostic without a summary: {d:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fuzz_parse_and_lint_never_panic(text in input()) {
        run(&text);
    }
}

#[test]
fn fuzz_seed_is_a_valid_configuration() {
    let files = [SourceFile::new("main.tf", SEED)];
    let inputs = VariableInputs::default();
    let (_, linted) = check(
        &admission::Sources::new(&files, &inputs),
        &crate::contract(),
    );
    assert_eq!(linted.diagnostics, vec![]);
    assert_eq!(linted.instances.len(), 9);
}

#[test]
fn fuzz_pathological_inputs_are_diagnosed_not_crashed() {
    let deep_parens = format!(
        "locals {{\n  x = {}1{}\n}}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let deep_ops = format!("locals {{\n  x = {}\n}}\n", vec!["1"; 5000].join(" + "));
    let long_chain: String = (0..500)
        .map(|i| format!("locals {{\n  l{i} = local.l{}\n}}\n", i + 1))
        .collect();
    let long_chain =
        format!("{long_chain}locals {{\n  l500 = 1\n}}\noutput \"o\" {{\n  value = local.l0\n}}\n");
    let deep_lists = format!(
        "locals {{\n  x = {}{}\n}}\n",
        "[".repeat(300),
        "]".repeat(300)
    );
    for text in [
        deep_parens,
        deep_ops,
        long_chain,
        deep_lists,
        "\u{feff}\0".to_string(),
        String::new(),
    ] {
        run(&text);
    }
}
