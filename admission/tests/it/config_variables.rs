//! Variable inputs: Terraform's precedence, typing by the declared type, and `invalid-variable`.

use std::collections::BTreeMap;

use admission::{
    SourceFile, VarInput, VariableInputs, parse_config, resolve_variables, var_file_names,
};
use expect_test::{Expect, expect};

const DECLS: &str = r#"
variable "region" {
  default = "us-east-1"
}
variable "replicas" {
  type    = number
  default = 1
}
variable "enabled" {
  type    = bool
  default = false
}
variable "zones" {
  type    = list(string)
  default = []
}
variable "tags" {
  type    = map(string)
  default = {}
}
variable "net" {
  type    = object({ cidr = string, public = bool })
  default = { cidr = "10.0.0.0/16", public = false }
}
variable "pair" {
  type    = tuple([string, number])
  default = ["a", 1]
}
variable "ids" {
  type    = set(number)
  default = [3, 1, 3]
}
"#;

/// Resolves the variables of `DECLS` (plus `extra`) and renders each value and diagnostic.
fn check(extra: &str, inputs: VariableInputs, expect: Expect) {
    let (config, diags) = parse_config(&[SourceFile::new("vars.tf", format!("{DECLS}{extra}"))]);
    assert_eq!(diags, vec![]);
    let (values, diags) = resolve_variables(&config, &inputs);
    let mut out: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    out.extend(diags.iter().map(|d| {
        let pos = d.pos.as_ref().map(|p| format!(" {p}")).unwrap_or_default();
        format!("{}{pos}: {}", d.code, d.summary)
    }));
    expect.assert_eq(&(out.join("\n") + "\n"));
}

#[test]
fn config_variables_defaults_are_typed() {
    check(
        "",
        VariableInputs::default(),
        expect![[r#"
            enabled = false
            ids = [1, 3]
            net = { cidr = "10.0.0.0/16", public = false }
            pair = ["a", 1]
            region = "us-east-1"
            replicas = 1
            tags = {}
            zones = []
        "#]],
    );
}

#[test]
fn config_variables_follow_terraform_precedence() {
    // Lowest to highest: default, TF_VAR_, terraform.tfvars, *.auto.tfvars by name, then --var and
    // --var-file in command-line order.
    let inputs = VariableInputs {
        env: BTreeMap::from([
            ("TF_VAR_region".into(), "env-region".into()),
            ("TF_VAR_replicas".into(), "7".into()),
            ("TF_VAR_enabled".into(), "true".into()),
            ("TF_VAR_zones".into(), r#"["a", "b"]"#.into()),
            ("TF_VAR_undeclared".into(), "ignored".into()),
            ("PATH".into(), "/bin".into()),
        ]),
        auto_files: vec![
            SourceFile::new(
                "terraform.tfvars",
                "region = \"tfvars-region\"\nreplicas = 2\n",
            ),
            SourceFile::new("a.auto.tfvars", "replicas = 3\ntags = { team = \"net\" }\n"),
            SourceFile::new("b.auto.tfvars.json", r#"{"replicas": 4, "pair": ["j", 9]}"#),
        ],
        cli: vec![
            VarInput::Var("replicas=5".into()),
            VarInput::File(SourceFile::new(
                "last.tfvars",
                "replicas = 6\nnet = { cidr = \"10.9.0.0/16\", public = true, extra = 1 }\n",
            )),
            VarInput::Var("region=cli=region".into()),
        ],
    };
    check(
        "",
        inputs,
        expect![[r#"
            enabled = true
            ids = [1, 3]
            net = { cidr = "10.9.0.0/16", public = true }
            pair = ["j", 9]
            region = "cli=region"
            replicas = 6
            tags = { team = "net" }
            zones = ["a", "b"]
        "#]],
    );
}

#[test]
fn config_variables_that_do_not_fit_are_invalid_variable() {
    let inputs = VariableInputs {
        env: BTreeMap::from([("TF_VAR_zones".into(), "[1, ".into())]),
        auto_files: vec![SourceFile::new(
            "terraform.tfvars",
            "replicas = \"many\"\nenabled = var.x\nnet = { cidr = \"x\" }\n",
        )],
        cli: vec![
            VarInput::Var("tags={ a = [1] }".into()),
            VarInput::Var("missing=1".into()),
            VarInput::Var("no-equals-sign".into()),
            VarInput::File(SourceFile::new("bad.tfvars", "pair = [\n")),
        ],
    };
    check(
        "variable \"needed\" {\n  type = string\n}\n",
        inputs,
        expect![[r#"
            enabled = false
            ids = [1, 3]
            net = { cidr = "10.0.0.0/16", public = false }
            pair = ["a", 1]
            region = "us-east-1"
            replicas = 1
            tags = {}
            zones = []
            invalid-variable TF_VAR_zones:1:5: `TF_VAR_zones` does not parse: invalid HCL: expected `]`
            invalid-variable terraform.tfvars:2:11: the value of `enabled` in terraform.tfvars is not a literal value: variable `x` is not declared
            invalid-variable terraform.tfvars:1:1: the value of `replicas` in terraform.tfvars does not fit its type: a number is required
            invalid-variable terraform.tfvars:3:1: the value of `net` in terraform.tfvars does not fit its type: attribute "public" is required
            invalid-variable: `--var tags` does not fit type map(string): ["a"]: a list is not a string
            invalid-variable: `--var missing` sets a variable that is not declared
            invalid-variable: `--var no-equals-sign` is not NAME=VALUE
            invalid-variable bad.tfvars:1:10: invalid HCL: expected `]`
            invalid-variable vars.tf:33:1: variable `needed` is required and has no value
        "#]],
    );
}

#[test]
fn config_variables_var_files_are_read_in_terraform_order() {
    let names: Vec<String> = [
        "z.auto.tfvars",
        "main.tf",
        "terraform.tfvars",
        "a.auto.tfvars.json",
        "other.tfvars",
        "terraform.tfvars.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        var_file_names(&names),
        [
            "terraform.tfvars",
            "terraform.tfvars.json",
            "a.auto.tfvars.json",
            "z.auto.tfvars"
        ]
    );
}

#[test]
fn config_variables_read_dir_collects_configuration_and_var_files_in_order() {
    use admission::read_dir;
    let dir = std::env::temp_dir().join(format!(
        "liveplan-admission-read-dir-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested.tf")).unwrap();
    for (name, text) in [
        ("b.tf", "locals {}\n"),
        ("a.tf", "live {}\n"),
        ("notes.txt", "not configuration"),
        ("z.auto.tfvars", "x = 1\n"),
        ("terraform.tfvars", "x = 0\n"),
        ("a.auto.tfvars", "x = 2\n"),
        ("manual.tfvars", "x = 3\n"),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let read = read_dir(&dir).unwrap();
    let tf: Vec<&str> = read.config_files.iter().map(|f| f.name.as_str()).collect();
    let vars: Vec<&str> = read.var_files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(tf, ["a.tf", "b.tf"]);
    assert_eq!(vars, ["terraform.tfvars", "a.auto.tfvars", "z.auto.tfvars"]);
    assert_eq!(read.config_files[0].text, "live {}\n");

    std::fs::write(dir.join("c.tf"), [0xff, 0xfe, b'x']).unwrap();
    let err = read_dir(&dir).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert!(err.to_string().ends_with("c.tf: not UTF-8 text"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();

    let missing = read_dir(&dir).unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
}
