//! The evaluator: every operator and function of the subset, unknown propagation, sensitivity, and the
//! references a configuration can make.

use std::collections::BTreeMap;

use admission::{BlockAddress, Value};
use admission::{Config, SourceFile, parse_config, parse_expression};
use admission::{EvalError, Evaluator, Instance, ResourceResolver};
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
    let (vars, diags) = admission::resolve_variables(&config(), &Default::default());
    assert_eq!(diags, vec![]);
    vars
}

/// What the engine would pass: known values for created resources, unknown ids for pending ones.
fn resources() -> BTreeMap<BlockAddress, Value> {
    let subnet = |i: i64| {
        Value::map([
            ("id", Value::from(format!("subnet-{i}"))),
            ("arn", Value::unknown()),
        ])
    };
    let block = |type_name: &str, name: &str| BlockAddress::new(type_name, name).unwrap();
    BTreeMap::from([
        (
            block("aws_vpc", "main"),
            Value::map([
                ("id", Value::from("vpc-1")),
                ("cidr_block", Value::from("10.0.0.0/16")),
            ]),
        ),
        (
            block("aws_subnet", "s"),
            Value::list([subnet(0), subnet(1)]),
        ),
        (
            block("aws_subnet", "e"),
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
            r#""%{if var.n > 2}big%{else}small%{endif}""#,
            r#""%{for k, v in var.tags}${k}=${v};%{endfor}""#,
            r#""%{if aws_vpc.pending.id == ""}x%{endif}""#,
            r#""%{for s in aws_vpc.pending.id}${s}%{endfor}""#,
            r#""%{if var.secret == ""}empty%{else}set%{endif}""#,
            r#"<<EOT
%{ for z in ["a", "b"] ~}
zone ${z}
%{ endfor ~}
EOT"#,
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
            "${var.name}-%{if false}x%{endif}"  =>  "web-"
            "a ${var.name} b"  =>  "a web b"
            "%{if var.n > 2}big%{else}small%{endif}"  =>  "big"
            "%{for k, v in var.tags}${k}=${v};%{endfor}"  =>  "env=prod;team=net;"
            "%{if aws_vpc.pending.id == ""}x%{endif}"  =>  unknown(string)
            "%{for s in aws_vpc.pending.id}${s}%{endfor}"  =>  unknown(string)
            "%{if var.secret == ""}empty%{else}set%{endif}"  =>  sensitive("set")
            <<EOT
            %{ for z in ["a", "b"] ~}
            zone ${z}
            %{ endfor ~}
            EOT  =>  "zone a\nzone b\n"
            <<-EOT
              hello ${var.name}
              EOT  =>  "hello web\n"
            1 / 0  =>  invalid-expression: Operation failed: division by zero
            1 + "a"  =>  invalid-expression: Invalid operand: "a" is not a number
            null ? 1 : 2  =>  invalid-expression: Incorrect condition type: the condition of a conditional expression is null; it must be true or false
        "#]],
    );
}

#[test]
fn eval_references_count_each_and_splat() {
    check(
        Instance::Count(1),
        &[
            r#"count.index"#,
            r#"aws_subnet.s[count.index].id"#,
            r#"aws_subnet.s[*].id"#,
            r#"aws_subnet.e["b"].id"#,
            r#"aws_vpc.main.id"#,
            r#"aws_vpc.pending.id"#,
            r#"aws_vpc.pending[*].id"#,
            r#"local.prefix"#,
            r#"local.twice"#,
            r#"local.vpc_id"#,
            r#"var.tags.team"#,
            r#"var.tags["env"]"#,
            r#"[for k, v in var.tags : "${k}=${v}"]"#,
            r#"{ for k, v in var.tags : v => k if k != "env" }"#,
            r#"{ for s in ["a", "b", "a"] : s => s... }"#,
            r#"[for s in aws_subnet.s : s.id]"#,
            r#"each.key"#,
            r#"var.missing"#,
            r#"local.missing"#,
            r#"aws_vpc.nope.id"#,
            r#"local.loop"#,
            r#"aws_subnet.s[5].id"#,
            r#"aws_vpc.main.nope"#,
            r#"path.module"#,
        ],
        expect![[r#"
            count.index  =>  1
            aws_subnet.s[count.index].id  =>  "subnet-1"
            aws_subnet.s[*].id  =>  ["subnet-0", "subnet-1"]
            aws_subnet.e["b"].id  =>  "subnet-11"
            aws_vpc.main.id  =>  "vpc-1"
            aws_vpc.pending.id  =>  unknown(any)
            aws_vpc.pending[*].id  =>  unknown(list(any))
            local.prefix  =>  "web-3"
            local.twice  =>  "web-3web-3"
            local.vpc_id  =>  "vpc-1"
            var.tags.team  =>  "net"
            var.tags["env"]  =>  "prod"
            [for k, v in var.tags : "${k}=${v}"]  =>  ["env=prod", "team=net"]
            { for k, v in var.tags : v => k if k != "env" }  =>  {net = "team"}
            { for s in ["a", "b", "a"] : s => s... }  =>  {a = ["a", "a"], b = ["b"]}
            [for s in aws_subnet.s : s.id]  =>  ["subnet-0", "subnet-1"]
            each.key  =>  unknown-reference: `each` is used outside a block with `for_each`
            var.missing  =>  unknown-reference: variable `missing` is not declared
            local.missing  =>  unknown-reference: local `missing` is not declared
            aws_vpc.nope.id  =>  unknown-reference: resource `aws_vpc.nope` is not declared
            local.loop  =>  invalid-expression: Invalid reference: local `loop` refers to itself
            aws_subnet.s[5].id  =>  invalid-expression: Invalid index: index 5 is out of range for a list of 2 element(s)
            aws_vpc.main.nope  =>  invalid-expression: Unsupported attribute: this object has no attribute `nope`
            path.module  =>  "."
        "#]],
    );
    check(
        Instance::Each {
            key: "a".into(),
            value: Value::from("10.0.1.0/24"),
        },
        &[
            r#"each.key"#,
            r#"each.value"#,
            r#""${each.key}:${each.value}""#,
            r#"aws_subnet.e[each.key].id"#,
            r#"count.index"#,
        ],
        expect![[r#"
            each.key  =>  "a"
            each.value  =>  "10.0.1.0/24"
            "${each.key}:${each.value}"  =>  "a:10.0.1.0/24"
            aws_subnet.e[each.key].id  =>  "subnet-10"
            count.index  =>  unknown-reference: `count.index` is used outside a block with `count`
        "#]],
    );
}

#[test]
fn eval_unknowns_propagate_through_every_operator() {
    check(
        Instance::Single,
        &[
            r#"aws_vpc.pending.id + 1"#,
            r#"1 - aws_vpc.pending.id"#,
            r#"aws_vpc.pending.id * 2"#,
            r#"aws_vpc.pending.id / 2"#,
            r#"aws_vpc.pending.id % 2"#,
            r#"-aws_vpc.pending.id"#,
            r#"!aws_vpc.pending.id"#,
            r#"aws_vpc.pending.id == "x""#,
            r#"aws_vpc.pending.id != "x""#,
            r#"aws_vpc.pending.id < 1"#,
            r#"aws_vpc.pending.id <= 1"#,
            r#"aws_vpc.pending.id > 1"#,
            r#"aws_vpc.pending.id >= 1"#,
            r#"aws_vpc.pending.id && true"#,
            r#"aws_vpc.pending.id && false"#,
            r#"aws_vpc.pending.id || false"#,
            r#"aws_vpc.pending.id || true"#,
            r#"[1, aws_vpc.pending.id] == [2, aws_vpc.pending.id]"#,
            r#""id-${aws_vpc.pending.id}""#,
            r#"aws_vpc.pending.id ? "a" : "b""#,
            r#"aws_vpc.pending.id ? 1 : "b""#,
            r#"aws_vpc.pending.id ? var.secret : "b""#,
            r#"{ (aws_vpc.pending.id) = 1 }"#,
            r#"[aws_vpc.pending.id, 1]"#,
            r#"var.tags[aws_vpc.pending.id]"#,
            r#"[for x in aws_vpc.pending.id : x]"#,
            r#"[for x in [1, 2] : x if x == aws_vpc.pending.id]"#,
            r#""a" + aws_vpc.pending.id"#,
        ],
        expect![[r#"
            aws_vpc.pending.id + 1  =>  unknown(number)
            1 - aws_vpc.pending.id  =>  unknown(number)
            aws_vpc.pending.id * 2  =>  unknown(number)
            aws_vpc.pending.id / 2  =>  unknown(number)
            aws_vpc.pending.id % 2  =>  unknown(number)
            -aws_vpc.pending.id  =>  unknown(number)
            !aws_vpc.pending.id  =>  unknown(bool)
            aws_vpc.pending.id == "x"  =>  unknown(bool)
            aws_vpc.pending.id != "x"  =>  unknown(bool)
            aws_vpc.pending.id < 1  =>  unknown(bool)
            aws_vpc.pending.id <= 1  =>  unknown(bool)
            aws_vpc.pending.id > 1  =>  unknown(bool)
            aws_vpc.pending.id >= 1  =>  unknown(bool)
            aws_vpc.pending.id && true  =>  unknown(bool)
            aws_vpc.pending.id && false  =>  false
            aws_vpc.pending.id || false  =>  unknown(bool)
            aws_vpc.pending.id || true  =>  true
            [1, aws_vpc.pending.id] == [2, aws_vpc.pending.id]  =>  false
            "id-${aws_vpc.pending.id}"  =>  unknown(string)
            aws_vpc.pending.id ? "a" : "b"  =>  unknown(string)
            aws_vpc.pending.id ? 1 : "b"  =>  unknown(string)
            aws_vpc.pending.id ? var.secret : "b"  =>  sensitive(unknown(string))
            { (aws_vpc.pending.id) = 1 }  =>  unknown(any)
            [aws_vpc.pending.id, 1]  =>  [unknown(any), 1]
            var.tags[aws_vpc.pending.id]  =>  unknown(any)
            [for x in aws_vpc.pending.id : x]  =>  unknown(list(any))
            [for x in [1, 2] : x if x == aws_vpc.pending.id]  =>  unknown(any)
            "a" + aws_vpc.pending.id  =>  invalid-expression: Invalid operand: "a" is not a number
        "#]],
    );
}

#[test]
fn eval_unknowns_propagate_through_every_function() {
    check(
        Instance::Single,
        &[
            r#"format("%s-%d", aws_vpc.pending.id, 1)"#,
            r#"join(",", ["a", aws_vpc.pending.id])"#,
            r#"concat(["a"], aws_vpc.pending.id)"#,
            r#"concat(["a"], [aws_vpc.pending.id])"#,
            r#"merge({ a = 1 }, aws_vpc.pending.id)"#,
            r#"lookup(var.tags, aws_vpc.pending.id, "d")"#,
            r#"lookup(aws_vpc.pending.id, "k")"#,
            r#"length(aws_vpc.pending.id)"#,
            r#"length([aws_vpc.pending.id, 2])"#,
            r#"tostring(aws_vpc.pending.id)"#,
            r#"tonumber(aws_vpc.pending.id)"#,
            r#"upper(aws_vpc.pending.id)"#,
            r#"lower(aws_vpc.pending.id)"#,
            r#"toset(aws_vpc.pending.id)"#,
            r#"tolist(aws_vpc.pending.id)"#,
            r#"tomap(aws_vpc.pending.id)"#,
            r#"keys(aws_vpc.pending.id)"#,
            r#"values(aws_vpc.pending.id)"#,
            r#"element(aws_vpc.pending.id, 0)"#,
            r#"element(["a", "b"], aws_vpc.pending.id)"#,
            r#"contains(["a", aws_vpc.pending.id], "b")"#,
            r#"contains(["a", aws_vpc.pending.id], "a")"#,
            r#"coalesce(aws_vpc.pending.id, "x")"#,
            r#"coalesce("x", aws_vpc.pending.id)"#,
            r#"range(aws_vpc.pending.id)"#,
            r#"replace(aws_vpc.pending.id, "a", "b")"#,
            r#"jsonencode({ a = aws_vpc.pending.id })"#,
            r#"cidrsubnet("10.0.0.0/16", 8, aws_vpc.pending.id)"#,
            r#"uuid()"#,
            r#"timestamp()"#,
        ],
        expect![[r#"
            format("%s-%d", aws_vpc.pending.id, 1)  =>  unknown(string)
            join(",", ["a", aws_vpc.pending.id])  =>  unknown(string)
            concat(["a"], aws_vpc.pending.id)  =>  unknown(list(any))
            concat(["a"], [aws_vpc.pending.id])  =>  ["a", unknown(any)]
            merge({ a = 1 }, aws_vpc.pending.id)  =>  unknown(any)
            lookup(var.tags, aws_vpc.pending.id, "d")  =>  unknown(any)
            lookup(aws_vpc.pending.id, "k")  =>  unknown(any)
            length(aws_vpc.pending.id)  =>  unknown(number)
            length([aws_vpc.pending.id, 2])  =>  2
            tostring(aws_vpc.pending.id)  =>  unknown(string)
            tonumber(aws_vpc.pending.id)  =>  unknown(number)
            upper(aws_vpc.pending.id)  =>  unknown(string)
            lower(aws_vpc.pending.id)  =>  unknown(string)
            toset(aws_vpc.pending.id)  =>  unknown(set(any))
            tolist(aws_vpc.pending.id)  =>  unknown(list(any))
            tomap(aws_vpc.pending.id)  =>  unknown(map(any))
            keys(aws_vpc.pending.id)  =>  unknown(list(string))
            values(aws_vpc.pending.id)  =>  unknown(list(any))
            element(aws_vpc.pending.id, 0)  =>  unknown(any)
            element(["a", "b"], aws_vpc.pending.id)  =>  unknown(any)
            contains(["a", aws_vpc.pending.id], "b")  =>  unknown(bool)
            contains(["a", aws_vpc.pending.id], "a")  =>  true
            coalesce(aws_vpc.pending.id, "x")  =>  unknown(any)
            coalesce("x", aws_vpc.pending.id)  =>  "x"
            range(aws_vpc.pending.id)  =>  unknown(list(number))
            replace(aws_vpc.pending.id, "a", "b")  =>  unknown(string)
            jsonencode({ a = aws_vpc.pending.id })  =>  unknown(string)
            cidrsubnet("10.0.0.0/16", 8, aws_vpc.pending.id)  =>  unknown(string)
            uuid()  =>  unknown(string)
            timestamp()  =>  unknown(string)
        "#]],
    );
}

#[test]
fn eval_known_function_results() {
    check(
        Instance::Single,
        &[
            r#"format("%s/%05.1f/%x/%q/%t/%v/%-4s|/%4d|%%", "a", 3.14159, 255, "q", true, [1], "ab", 42)"#,
            r#"format("%d", 1.5)"#,
            r#"format("%s %s", "one")"#,
            r#"join("-", ["a", "b"], ["c"])"#,
            r#"concat([1], [2, 3], toset(["x"]))"#,
            r#"merge({ a = 1, b = 2 }, null, { b = 3 })"#,
            r#"lookup({ a = 1 }, "b", 0)"#,
            r#"lookup({ a = 1 }, "b")"#,
            r#"length("héllo")"#,
            r#"length({ a = 1 })"#,
            r#"tostring(12.5)"#,
            r#"tonumber("0x1")"#,
            r#"tonumber("1e3")"#,
            r#"upper("abc")"#,
            r#"toset(["b", "a", "b"])"#,
            r#"toset(["a", 1, true])"#,
            r#"tolist(toset(["b", "a"]))"#,
            r#"tomap({ a = 1, b = "x" })"#,
            r#"keys({ b = 1, a = 2 })"#,
            r#"values({ b = 1, a = 2 })"#,
            r#"element(["a", "b", "c"], 4)"#,
            r#"element([], 0)"#,
            r#"contains(toset(["a"]), "a")"#,
            r#"coalesce(null, "", "x")"#,
            r#"coalesce(null, "")"#,
            r#"range(3)"#,
            r#"range(1, 7, 2)"#,
            r#"range(5, 1)"#,
            r#"range(2000)"#,
            r#"replace("a.b.c", ".", "-")"#,
            r#"replace("abc", "/b/", "x")"#,
            r#"jsonencode({ b = [1, "<x>"], a = null, c = toset(["z"]) })"#,
            r#"cidrsubnet("10.1.0.0/16", 8, 2)"#,
            r#"cidrsubnet("10.1.2.3/16", 4, 15)"#,
            r#"cidrsubnet("10.1.0.0/16", 8, 256)"#,
            r#"cidrsubnet("fd00::/48", 16, 3)"#,
            r#"upper(1, 2)"#,
            r#"file("x")"#,
            r#"concat(["a"]...)"#,
            r#"format("%s-%s", ["a", "b"]...)"#,
        ],
        expect![[r#"
            format("%s/%05.1f/%x/%q/%t/%v/%-4s|/%4d|%%", "a", 3.14159, 255, "q", true, [1], "ab", 42)  =>  "a/003.1/ff/\"q\"/true/[1]/ab  |/  42|%"
            format("%d", 1.5)  =>  invalid-function-argument: invalid function argument: format(): unsupported value for "%d" at 0: an integer is required
            format("%s %s", "one")  =>  invalid-function-argument: invalid function argument: format(): not enough arguments for "%s" at 3: need index 2 but have 1 total
            join("-", ["a", "b"], ["c"])  =>  "a-b-c"
            concat([1], [2, 3], toset(["x"]))  =>  [1, 2, 3, "x"]
            merge({ a = 1, b = 2 }, null, { b = 3 })  =>  {a = 1, b = 3}
            lookup({ a = 1 }, "b", 0)  =>  0
            lookup({ a = 1 }, "b")  =>  invalid-function-argument: invalid function argument: lookup(): lookup failed to find key "b"
            length("héllo")  =>  5
            length({ a = 1 })  =>  1
            tostring(12.5)  =>  "12.5"
            tonumber("0x1")  =>  invalid-function-argument: invalid function argument: tonumber(): cannot convert "0x1" to number: string must be a decimal representation of a number
            tonumber("1e3")  =>  1000
            upper("abc")  =>  "ABC"
            toset(["b", "a", "b"])  =>  set["a", "b"]
            toset(["a", 1, true])  =>  set["1", "a", "true"]
            tolist(toset(["b", "a"]))  =>  ["a", "b"]
            tomap({ a = 1, b = "x" })  =>  {a = "1", b = "x"}
            keys({ b = 1, a = 2 })  =>  ["a", "b"]
            values({ b = 1, a = 2 })  =>  [2, 1]
            element(["a", "b", "c"], 4)  =>  "b"
            element([], 0)  =>  invalid-function-argument: invalid function argument: element(): cannot use element function with an empty list
            contains(toset(["a"]), "a")  =>  true
            coalesce(null, "", "x")  =>  "x"
            coalesce(null, "")  =>  invalid-function-argument: invalid function argument: coalesce(): no non-null, non-empty-string arguments
            range(3)  =>  [0, 1, 2]
            range(1, 7, 2)  =>  [1, 3, 5]
            range(5, 1)  =>  [5, 4, 3, 2]
            range(2000)  =>  invalid-function-argument: invalid function argument: range(): more than 1024 values were generated; either decrease the difference between start and end or use a smaller step
            replace("a.b.c", ".", "-")  =>  "a-b-c"
            replace("abc", "/b/", "x")  =>  "axc"
            jsonencode({ b = [1, "<x>"], a = null, c = toset(["z"]) })  =>  "{\"a\":null,\"b\":[1,\"\\u003cx\\u003e\"],\"c\":[\"z\"]}"
            cidrsubnet("10.1.0.0/16", 8, 2)  =>  "10.1.2.0/24"
            cidrsubnet("10.1.2.3/16", 4, 15)  =>  "10.1.240.0/20"
            cidrsubnet("10.1.0.0/16", 8, 256)  =>  invalid-function-argument: invalid function argument: cidrsubnet(): prefix extension of 8 does not accommodate a subnet numbered 256
            cidrsubnet("fd00::/48", 16, 3)  =>  "fd00:0:0:3::/64"
            upper(1, 2)  =>  invalid-function-argument: invalid function argument: upper(): takes 1 argument(s), 2 given
            file("x")  =>  invalid-function-argument: invalid function argument: file(): no file exists at "x": not found
            concat(["a"]...)  =>  invalid-function-argument: invalid function argument: concat(): a list, tuple or set is required
            format("%s-%s", ["a", "b"]...)  =>  "a-b"
        "#]],
    );
}

#[test]
fn eval_sensitive_values_stay_sensitive_through_operations() {
    check(
        Instance::Single,
        &[
            r#"var.secret"#,
            r#""pw=${var.secret}""#,
            r#"upper(var.secret)"#,
            r#"length(var.secret)"#,
            r#"var.secret == "s3cr3t""#,
            r#"var.secret != "x" ? "a" : "b""#,
            r#"true ? var.secret : "b""#,
            r#"false ? var.secret : "b""#,
            r#"[var.secret, "open"]"#,
            r#"[var.secret, "open"][1]"#,
            r#"{ k = var.secret }.k"#,
            r#"merge({ a = "open" }, { b = var.secret })"#,
            r#"jsonencode({ p = var.secret })"#,
            r#"format("%s", var.secret)"#,
            r#"join(",", [var.secret])"#,
            r#"[for c in [var.secret] : upper(c)]"#,
            r#"{ (var.secret) = 1 }"#,
            r#"tolist([var.secret])"#,
            r#"coalesce(var.secret, "x")"#,
            r#"!(var.secret == "")"#,
            r#"length(var.secret) + 1"#,
        ],
        expect![[r#"
            var.secret  =>  sensitive("s3cr3t")
            "pw=${var.secret}"  =>  sensitive("pw=s3cr3t")
            upper(var.secret)  =>  sensitive("S3CR3T")
            length(var.secret)  =>  sensitive(6)
            var.secret == "s3cr3t"  =>  sensitive(true)
            var.secret != "x" ? "a" : "b"  =>  sensitive("a")
            true ? var.secret : "b"  =>  sensitive("s3cr3t")
            false ? var.secret : "b"  =>  "b"
            [var.secret, "open"]  =>  [sensitive("s3cr3t"), "open"]
            [var.secret, "open"][1]  =>  "open"
            { k = var.secret }.k  =>  sensitive("s3cr3t")
            merge({ a = "open" }, { b = var.secret })  =>  {a = "open", b = sensitive("s3cr3t")}
            jsonencode({ p = var.secret })  =>  sensitive("{\"p\":\"s3cr3t\"}")
            format("%s", var.secret)  =>  sensitive("s3cr3t")
            join(",", [var.secret])  =>  sensitive("s3cr3t")
            [for c in [var.secret] : upper(c)]  =>  [sensitive("S3CR3T")]
            { (var.secret) = 1 }  =>  sensitive({s3cr3t = 1})
            tolist([var.secret])  =>  [sensitive("s3cr3t")]
            coalesce(var.secret, "x")  =>  sensitive("s3cr3t")
            !(var.secret == "")  =>  sensitive(true)
            length(var.secret) + 1  =>  sensitive(7)
        "#]],
    );
}

#[test]
fn eval_static_evaluator_refuses_resource_references() {
    let (config, vars) = (config(), vars());
    let ev = Evaluator::new(&config, &vars);
    let out: Vec<String> = [
        r#"aws_vpc.main.id"#,
        r#"local.vpc_id"#,
        r#"aws_subnet.s[0].id"#,
        r#"local.prefix"#,
    ]
    .iter()
    .map(|l| eval_line(&ev, l, &Instance::Single))
    .collect();
    expect![[r#"
        aws_vpc.main.id  =>  not static: aws_vpc.main.id
        local.vpc_id  =>  not static: aws_vpc.main.id
        aws_subnet.s[0].id  =>  not static: aws_subnet.s[...].id
        local.prefix  =>  "web-3"
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
}

/// A resolver that answers members of `aws_subnet.s` one by one and logs what it is asked.
struct MemberResolver {
    whole: BTreeMap<BlockAddress, Value>,
    asked: std::cell::RefCell<Vec<String>>,
}

impl ResourceResolver for MemberResolver {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        self.asked
            .borrow_mut()
            .push(format!("block {type_name}.{name}"));
        self.whole.resolve(type_name, name)
    }

    fn resolve_member(&self, type_name: &str, name: &str, key: &Value) -> Option<Value> {
        self.asked
            .borrow_mut()
            .push(format!("member {type_name}.{name}[{key}]"));
        match (type_name, name, key) {
            ("aws_subnet", "s", Value::Number(n)) if n.as_u64() == Some(1) => {
                Some(Value::map([("id", Value::from("subnet-one"))]))
            }
            _ => None,
        }
    }
}

#[test]
fn eval_a_member_reference_asks_for_the_member_before_the_block() {
    let (config, vars) = (config(), vars());
    let resolver = MemberResolver {
        whole: resources(),
        asked: Default::default(),
    };
    let ev = Evaluator::with_resources(&config, &vars, &resolver);
    let lines = [
        // Answered by the member alone: the block is never built.
        r#"aws_subnet.s[1].id"#,
        // The key is evaluated once, without its sensitivity, and the mark is put back on the member.
        r#"aws_subnet.s[var.secret == "" ? 0 : 1].id"#,
        // Not answered: the block is indexed, with its diagnostic for a key it does not have.
        r#"aws_subnet.s[0].id"#,
        r#"aws_subnet.s[5].id"#,
        // Read whole: only the block is asked.
        r#"length(aws_subnet.s)"#,
    ];
    let out: Vec<String> = lines
        .iter()
        .map(|l| eval_line(&ev, l, &Instance::Single))
        .collect();
    expect![[r#"
        aws_subnet.s[1].id  =>  "subnet-one"
        aws_subnet.s[var.secret == "" ? 0 : 1].id  =>  sensitive("subnet-one")
        aws_subnet.s[0].id  =>  "subnet-0"
        aws_subnet.s[5].id  =>  invalid-expression: Invalid index: index 5 is out of range for a list of 2 element(s)
        length(aws_subnet.s)  =>  2
    "#]].assert_eq(&(out.join("\n") + "\n"));
    expect![[r#"
        member aws_subnet.s[1]
        member aws_subnet.s[1]
        member aws_subnet.s[0]
        block aws_subnet.s
        member aws_subnet.s[5]
        block aws_subnet.s
        block aws_subnet.s
    "#]]
    .assert_eq(&(resolver.asked.borrow().join("\n") + "\n"));
}

/// A resolver that answers `aws_subnet.s[1].id` attribute by attribute, and the rest as [`MemberResolver`].
struct AttrResolver {
    members: MemberResolver,
}

impl ResourceResolver for AttrResolver {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        self.members.resolve(type_name, name)
    }

    fn resolve_member(&self, type_name: &str, name: &str, key: &Value) -> Option<Value> {
        self.members.resolve_member(type_name, name, key)
    }

    fn resolve_member_attr(
        &self,
        type_name: &str,
        name: &str,
        key: &Value,
        attr: &str,
    ) -> Option<Value> {
        self.members
            .asked
            .borrow_mut()
            .push(format!("attr {type_name}.{name}[{key}].{attr}"));
        match (type_name, name, key, attr) {
            ("aws_subnet", "s", Value::Number(n), "id") if n.as_u64() == Some(1) => {
                Some(Value::from("subnet-one-by-attribute"))
            }
            _ => None,
        }
    }
}

#[test]
fn eval_a_member_attribute_reference_asks_for_the_attribute_before_the_member() {
    let (config, vars) = (config(), vars());
    let resolver = AttrResolver {
        members: MemberResolver {
            whole: resources(),
            asked: Default::default(),
        },
    };
    let ev = Evaluator::with_resources(&config, &vars, &resolver);
    let lines = [
        // Answered by the attribute alone: neither the member nor the block is built.
        r#"aws_subnet.s[1].id"#,
        // The key's sensitivity goes back on the attribute.
        r#"aws_subnet.s[var.secret == "" ? 0 : 1].id"#,
        // Not answered: the member is asked next, then the block.
        r#"aws_subnet.s[0].id"#,
        // No attribute step: only the member is asked.
        r#"aws_subnet.s[1]"#,
    ];
    let out: Vec<String> = lines
        .iter()
        .map(|l| eval_line(&ev, l, &Instance::Single))
        .collect();
    expect![[r#"
        aws_subnet.s[1].id  =>  "subnet-one-by-attribute"
        aws_subnet.s[var.secret == "" ? 0 : 1].id  =>  sensitive("subnet-one-by-attribute")
        aws_subnet.s[0].id  =>  "subnet-0"
        aws_subnet.s[1]  =>  {id = "subnet-one"}
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
    expect![[r#"
        attr aws_subnet.s[1].id
        attr aws_subnet.s[1].id
        attr aws_subnet.s[0].id
        member aws_subnet.s[0]
        block aws_subnet.s
        member aws_subnet.s[1]
    "#]]
    .assert_eq(&(resolver.members.asked.borrow().join("\n") + "\n"));
}
