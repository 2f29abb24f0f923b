//! The evaluator: every operator and function of the subset, unknown propagation, sensitivity, and the
//! references a configuration can make.

use std::collections::BTreeMap;

use admission::config::{Config, SourceFile, parse_config, parse_expression};
use admission::eval::{EvalError, Evaluator, Instance};
use admission::value::Value;
use expect_test::{Expect, expect};

const CONFIG: &str = r#"
variable "n" {
  type    = number
  default = 3
}
variable "name" {
  default = "web"
}
variable "secret" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}
variable "tags" {
  type    = map(string)
  default = { team = "net", env = "prod" }
}
locals {
  prefix = "${var.name}-${var.n}"
  twice  = local.prefix == "" ? "" : "${local.prefix}${local.prefix}"
  loop   = local.loop
  vpc_id = aws_vpc.main.id
}
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
resource "aws_vpc" "pending" {
  cidr_block = "10.1.0.0/16"
}
resource "aws_subnet" "s" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
resource "aws_subnet" "e" {
  for_each   = { a = "10.0.1.0/24", b = "10.0.2.0/24" }
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
}
"#;

fn config() -> Config {
    let (config, diags) = parse_config(&[SourceFile::new("main.tf", CONFIG)]);
    assert_eq!(diags, vec![]);
    config
}

fn vars() -> BTreeMap<String, Value> {
    let (vars, diags) = admission::config::resolve_variables(&config(), &Default::default());
    assert_eq!(diags, vec![]);
    vars
}

/// What the engine would pass: known values for created resources, unknown ids for pending ones.
fn resources() -> BTreeMap<String, Value> {
    let subnet = |i: i64| {
        Value::map([
            ("id", Value::from(format!("subnet-{i}"))),
            ("arn", Value::unknown()),
        ])
    };
    BTreeMap::from([
        (
            "aws_vpc.main".to_string(),
            Value::map([
                ("id", Value::from("vpc-1")),
                ("cidr_block", Value::from("10.0.0.0/16")),
            ]),
        ),
        (
            "aws_subnet.s".to_string(),
            Value::list([subnet(0), subnet(1)]),
        ),
        (
            "aws_subnet.e".to_string(),
            Value::map([("a", subnet(10)), ("b", subnet(11))]),
        ),
    ])
}

/// Renders a value with its marks visible: `unknown(T)` and `sensitive(...)`.
fn render(v: &Value) -> String {
    match v {
        Value::Unknown(t) => format!("unknown({t})"),
        Value::Sensitive(inner) => format!("sensitive({})", render(inner)),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Value::Set(items) => format!(
            "set[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k} = {}", render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

fn eval_line(ev: &Evaluator<'_>, src: &str, inst: &Instance) -> String {
    let expr = match parse_expression("expr.tf", src) {
        Ok(e) => e,
        Err(d) => return format!("{src}  =>  parse error: {}", d.summary),
    };
    match ev.eval(&expr, inst) {
        Ok(v) => format!("{src}  =>  {}", render(&v)),
        Err(EvalError::NotStatic { reference, .. }) => {
            format!("{src}  =>  not static: {reference}")
        }
        Err(EvalError::Invalid(d)) => format!("{src}  =>  {}: {}", d.code, d.summary),
    }
}

/// Evaluates each line with resources resolved, for `inst`, and compares the rendered table.
fn check(inst: Instance, lines: &[&str], expect: Expect) {
    let (config, vars, res) = (config(), vars(), resources());
    let ev = Evaluator::with_resources(&config, &vars, &res);
    let out: Vec<String> = lines.iter().map(|l| eval_line(&ev, l, &inst)).collect();
    expect.assert_eq(&(out.join("\n") + "\n"));
}

#[test]
fn eval_literals_operators_and_conditionals() {
    check(
        Instance::Single,
        &[
            r#"null"#,
            r#"[1, "a", true, { k = [2] }]"#,
            r#"{ (var.name) = 1, "x y" = 2 }"#,
            r#"1 + 2 * 3 - 4 / 8"#,
            r#"7 % 3"#,
            r#"-var.n"#,
            r#""5" + 1"#,
            r#"1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4"#,
            r#"!true || false"#,
            r#"1 == 1.0"#,
            r#"[1, "a"] == [1, "a"]"#,
            r#""1" != 1"#,
            r#"var.n > 2 ? "big" : "small""#,
            r#""${var.name}-%{if false}x%{endif}""#,
            r#""a ${var.name} b""#,
            r#"<<-EOT
  hello ${var.name}
  EOT"#,
            r#"1 / 0"#,
            r#"1 + "a""#,
            r#"null ? 1 : 2"#,
        ],
        expect![[r#"
            null  =>  null
            [1, "a", true, { k = [2] }]  =>  [1, "a", true, {k = [2]}]
            { (var.name) = 1, "x y" = 2 }  =>  {web = 1, x y = 2}
            1 + 2 * 3 - 4 / 8  =>  6.5
            7 % 3  =>  1
            -var.n  =>  -3
            "5" + 1  =>  6
            1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4  =>  false
            !true || false  =>  false
            1 == 1.0  =>  true
            [1, "a"] == [1, "a"]  =>  true
            "1" != 1  =>  true
            var.n > 2 ? "big" : "small"  =>  "big"
            "${var.name}-%{if false}x%{endif}"  =>  parse error: template directives (`%{if}`, `%{for}`) are not supported
            "a ${var.name} b"  =>  "a web b"
            <<-EOT
              hello ${var.name}
              EOT  =>  "hello web\n"
            1 / 0  =>  unsupported-construct: invalid expression: division by zero
            1 + "a"  =>  unsupported-construct: invalid expression: "a" is not a number
            null ? 1 : 2  =>  unsupported-construct: invalid expression: a bool is required, found null
        "#]],
    );
}
