//! String functions, regular expressions, `format`, and `try`/`can`: the examples of Terraform 1.9's
//! function pages and the cases of expressions.md, with Terraform's results.

use super::functions_table::{Row, check};

const TRY_CAN: &[Row] = &[
    ("try.mdx", r#"try(local.foo.bar, "fallback")"#, r#""baz""#),
    (
        "try.mdx",
        r#"try(local.foo.boop, "fallback")"#,
        r#""fallback""#,
    ),
    (
        "try.mdx",
        r#"try(local.nonexist, "fallback")"#,
        "error: local `nonexist` is not declared",
    ),
    ("can.mdx", "can(local.foo.bar)", "true"),
    ("can.mdx", "can(local.foo.boop)", "false"),
    (
        "can.mdx",
        r#"can(formatdate("", "not a timestamp"))"#,
        "false",
    ),
    (
        "can.mdx",
        r#"can(formatdate("", "2018-01-02T23:12:01Z"))"#,
        "true",
    ),
    // Arguments after the first that succeeds are never evaluated.
    ("try.mdx", r#"try("a", [][0])"#, r#""a""#),
    (
        "try.mdx",
        r#"try([tostring([])], tolist(["x"]))"#,
        r#"["x"]"#,
    ),
    (
        "try.mdx",
        "try({}[0], {}.x)",
        "error: no expression succeeded",
    ),
    (
        "try.mdx",
        "try()",
        "error: takes at least 1 argument(s), 0 given",
    ),
    // An unknown value may still fail once known: the answer waits.
    ("try.mdx", r#"try(aws_vpc.pending.id, "x")"#, "unknown(any)"),
    ("can.mdx", "can(aws_vpc.pending.id)", "unknown(bool)"),
    (
        "expressions.md #358",
        "var.nullobj != null ? var.nullobj.is_thingy : false",
        "false",
    ),
    ("try.mdx", "try(var.nullobj.is_thingy, false)", "false"),
    (
        "try.mdx",
        "try(var.secret, \"x\")",
        r#"sensitive("s3cr3t")"#,
    ),
];

const STRINGS: &[Row] = &[
    ("chomp.mdx", r#"chomp("hello\n")"#, r#""hello""#),
    ("chomp.mdx", r#"chomp("hello\r\n")"#, r#""hello""#),
    ("chomp.mdx", r#"chomp("hello\n\n")"#, r#""hello""#),
    (
        "endswith.mdx",
        r#"endswith("hello world", "world")"#,
        "true",
    ),
    (
        "endswith.mdx",
        r#"endswith("hello world", "hello")"#,
        "false",
    ),
    (
        "startswith.mdx",
        r#"startswith("hello world", "hello")"#,
        "true",
    ),
    (
        "startswith.mdx",
        r#"startswith("hello world", "world")"#,
        "false",
    ),
    (
        "strcontains.mdx",
        r#"strcontains("hello world", "wor")"#,
        "true",
    ),
    (
        "strcontains.mdx",
        r#"strcontains("hello world", "wod")"#,
        "false",
    ),
    (
        "indent.mdx",
        r#""  items: ${indent(2, "[\n  foo,\n  bar,\n]\n")}""#,
        r#""  items: [\n    foo,\n    bar,\n  ]\n  ""#,
    ),
    (
        "join.mdx",
        r#"join("-", ["foo", "bar", "baz"])"#,
        r#""foo-bar-baz""#,
    ),
    (
        "join.mdx",
        r#"join(", ", ["foo", "bar", "baz"])"#,
        r#""foo, bar, baz""#,
    ),
    ("join.mdx", r#"join(", ", ["foo"])"#, r#""foo""#),
    (
        "expressions.md #52",
        r#"join(",", ["a", null])"#,
        "error: element 1 is null",
    ),
    ("lower.mdx", r#"lower("HELLO")"#, r#""hello""#),
    ("lower.mdx", r#"lower("АЛЛО!")"#, r#""алло!""#),
    ("upper.mdx", r#"upper("hello")"#, r#""HELLO""#),
    ("upper.mdx", r#"upper("алло!")"#, r#""АЛЛО!""#),
    ("expressions.md #397", r#"upper("baﬄe")"#, r#""BAﬄE""#),
    ("expressions.md #100", "upper(null)", "error: null"),
    ("split.mdx", r#"split(",", "foo")"#, r#"["foo"]"#),
    (
        "split.mdx",
        r#"split(",", "foo,bar,baz")"#,
        r#"["foo", "bar", "baz"]"#,
    ),
    ("split.mdx", r#"split(",", "")"#, r#"[""]"#),
    ("strrev.mdx", r#"strrev("hello")"#, r#""olleh""#),
    ("strrev.mdx", r#"strrev("a ☃")"#, r#""☃ a""#),
    ("substr.mdx", r#"substr("hello world", 1, 4)"#, r#""ello""#),
    ("substr.mdx", r#"substr("🤔🤷", 0, 1)"#, r#""🤔""#),
    (
        "substr.mdx",
        r#"substr("hello world", -5, -1)"#,
        r#""world""#,
    ),
    (
        "substr.mdx",
        r#"substr("hello world", 7, 100)"#,
        r#""orld""#,
    ),
    ("title.mdx", r#"title("hello world")"#, r#""Hello World""#),
    ("trim.mdx", r#"trim("?!hello?!", "!?")"#, r#""hello""#),
    ("trim.mdx", r#"trim("foobar", "far")"#, r#""oob""#),
    (
        "trim.mdx",
        r#"trim("   hello! world.!  ", "! ")"#,
        r#""hello! world.""#,
    ),
    (
        "trimprefix.mdx",
        r#"trimprefix("helloworld", "hello")"#,
        r#""world""#,
    ),
    (
        "trimprefix.mdx",
        r#"trimprefix("helloworld", "cat")"#,
        r#""helloworld""#,
    ),
    (
        "trimsuffix.mdx",
        r#"trimsuffix("helloworld", "world")"#,
        r#""hello""#,
    ),
    (
        "trimsuffix.mdx",
        r#"trimsuffix("helloworld", "cat")"#,
        r#""helloworld""#,
    ),
    ("trimspace.mdx", r#"trimspace("  hello\n\n")"#, r#""hello""#),
    (
        "templatestring.mdx",
        r#"templatestring(local.tmpl, { name = "Juan" })"#,
        r#""Hello, Juan!""#,
    ),
    (
        "templatestring.mdx",
        r#"templatestring("%%{ for x in xs }$${x};%%{ endfor }", { xs = [1, 2] })"#,
        r#""1;2;""#,
    ),
    (
        "templatestring.mdx",
        r#"templatestring("$${var.secret}", {})"#,
        "error: not declared",
    ),
    ("expressions.md #75", r#"length("👾🕹️")"#, "2"),
    ("expressions.md #77", r#"length("noe\u0308l")"#, "4"),
    ("length.mdx", r#"length("hello")"#, "5"),
];

const REGEX: &[Row] = &[
    (
        "regex.mdx",
        r#"regex("[a-z]+", "53453453.345345aaabbbccc23454")"#,
        r#""aaabbbccc""#,
    ),
    (
        "regex.mdx",
        r#"regex("(\\d\\d\\d\\d)-(\\d\\d)-(\\d\\d)", "2019-02-01")"#,
        r#"["2019", "02", "01"]"#,
    ),
    (
        "regex.mdx",
        r#"regex("^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?", "https://terraform.io/docs/")"#,
        r#"{authority = "terraform.io", scheme = "https"}"#,
    ),
    (
        "regex.mdx",
        r#"regex("[a-z]+", "53453453.34534523454")"#,
        "error: pattern did not match any part of the given string",
    ),
    (
        "regex.mdx",
        r#"regex("(?P<a>x)(y)", "xy")"#,
        "error: cannot be mixed",
    ),
    (
        "regexall.mdx",
        r#"regexall("[a-z]+", "1234abcd5678efgh9")"#,
        r#"["abcd", "efgh"]"#,
    ),
    (
        "regexall.mdx",
        r#"length(regexall("[a-z]+", "1234abcd5678efgh9"))"#,
        "2",
    ),
    (
        "regexall.mdx",
        r#"length(regexall("[a-z]+", "123456789")) > 0"#,
        "false",
    ),
    (
        "replace.mdx",
        r#"replace("1 + 2 + 3", "+", "-")"#,
        r#""1 - 2 - 3""#,
    ),
    (
        "replace.mdx",
        r#"replace("hello world", "/w.*d/", "everybody")"#,
        r#""hello everybody""#,
    ),
    (
        "expressions.md #157",
        r#"replace("hello", "/l/", "L")"#,
        r#""heLLo""#,
    ),
    (
        "expressions.md #158",
        r#"replace("helo", "/(l)/", "$1$1")"#,
        r#""hello""#,
    ),
    (
        "expressions.md #159",
        r#"replace("hello", "/(l/", "$1$1")"#,
        "error: invalid regular expression",
    ),
    (
        "expressions.md #161",
        r#"replace("abc", "/(?P<x>b)/", "[$x]")"#,
        r#""a[b]c""#,
    ),
    (
        "expressions.md #162",
        r#"replace("hello world", "/^hello/", "bye")"#,
        r#""bye world""#,
    ),
    (
        "expressions.md #406",
        r#"replace("aaa", "", "x")"#,
        r#""xaxaxax""#,
    ),
];

const FORMAT: &[Row] = &[
    (
        "format.mdx",
        r#"format("Hello, %s!", "Ander")"#,
        r#""Hello, Ander!""#,
    ),
    (
        "format.mdx",
        r#"format("There are %d lights", 4)"#,
        r#""There are 4 lights""#,
    ),
    ("format.mdx", r#"format("%#v", "hello")"#, r#""\"hello\"""#),
    ("format.mdx", r#"format("%#v", true)"#, r#""true""#),
    ("format.mdx", r#"format("%#v", 1)"#, r#""1""#),
    ("format.mdx", r#"format("%#v", {a = 1})"#, r#""{\"a\":1}""#),
    ("format.mdx", r#"format("%#v", [true])"#, r#""[true]""#),
    ("format.mdx", r#"format("%#v", null)"#, r#""null""#),
    (
        "format.mdx",
        r#"format("%[1]s%[2]s%[1]s%[3]s", "/", "path", "file.tf")"#,
        r#""/path/file.tf""#,
    ),
    (
        "expressions.md #11",
        r#"format("string %[2]v", true, "hello")"#,
        r#""string hello""#,
    ),
    ("expressions.md #24", r#"format("%4s", "💃🏿")"#, r#""   💃🏿""#),
    ("expressions.md #27", r#"format("% d", 10)"#, r#"" 10""#),
    (
        "expressions.md #37",
        r#"format("%e %E", 1000, 1000)"#,
        r#""1.000000e+03 1.000000E+03""#,
    ),
    ("expressions.md #38", r#"format("%g", 1000)"#, r#""1000""#),
    (
        "expressions.md #39",
        r#"format("%g", "0.00000000000000000000001")"#,
        r#""1e-23""#,
    ),
    ("expressions.md #407", r#"format("%x", -255)"#, r#""-ff""#),
    (
        "expressions.md #19",
        r#"format("%s", null)"#,
        "error: null value cannot be formatted",
    ),
    (
        "expressions.md #30",
        r#"format("%d", true)"#,
        "error: number required, but have bool",
    ),
    (
        "expressions.md #31",
        r#"format("%d", 3.5)"#,
        "error: an integer is required",
    ),
    (
        "expressions.md #40",
        r#"format("%v %v %v", true, true)"#,
        "error: need index 3 but have 2 total",
    ),
    (
        "expressions.md #41",
        r#"format("%[3]s", true, true)"#,
        "error: need index 3 but have 2 total",
    ),
    (
        "expressions.md #42",
        r#"format("%z is not a valid sequence", 10)"#,
        "error: unsupported format verb 'z'",
    ),
    (
        "expressions.md #43",
        r#"format("no format verbs at all", 10)"#,
        "error: too many arguments; no verbs in format string",
    ),
    (
        "expressions.md #44",
        r#"format("only one verb %d", 10, 11)"#,
        "error: too many arguments; only 1 used by format string",
    ),
    (
        "expressions.md #45",
        r#"format("%s", [1])"#,
        "error: string required",
    ),
    ("format.mdx", r#"format("%.3s", "hello")"#, r#""hel""#),
    ("format.mdx", r#"format("%05.2f", 3.14159)"#, r#""03.14""#),
    (
        "formatlist.mdx",
        r#"formatlist("Hello, %s!", ["Valentina", "Ander", "Olivia", "Sam"])"#,
        r#"["Hello, Valentina!", "Hello, Ander!", "Hello, Olivia!", "Hello, Sam!"]"#,
    ),
    (
        "formatlist.mdx",
        r#"formatlist("%s, %s!", "Salutations", ["Valentina", "Ander", "Olivia", "Sam"])"#,
        r#"["Salutations, Valentina!", "Salutations, Ander!", "Salutations, Olivia!", "Salutations, Sam!"]"#,
    ),
    (
        "formatlist.mdx",
        r#"formatlist("%s=%s", ["a", "b"], ["x"])"#,
        "error: inconsistent",
    ),
];

/// Unknown arguments give unknown results; marks stay; errors never quote a secret.
const MARKS: &[Row] = &[
    (
        "expressions.md: unknowns",
        "upper(aws_vpc.pending.id)",
        "unknown(string)",
    ),
    (
        "expressions.md: unknowns",
        r#"regexall("a", aws_vpc.pending.id)"#,
        "unknown(list(any))",
    ),
    (
        "expressions.md: unknowns",
        r#"format("%s", aws_vpc.pending.id)"#,
        "unknown(string)",
    ),
    (
        "expressions.md: unknowns",
        r#"split(",", aws_vpc.pending.id)"#,
        "unknown(list(string))",
    ),
    ("expressions.md #403", "length(var.secret)", "sensitive(6)"),
    (
        "sensitive.mdx",
        r#"replace(var.secret, "3", "e")"#,
        r#"sensitive("secret")"#,
    ),
    (
        "sensitive.mdx",
        r#"regex("[0-9]", var.secret)"#,
        r#"sensitive("3")"#,
    ),
    (
        "sensitive.mdx",
        r#"regex("x", var.secret)"#,
        "error: pattern did not match",
    ),
    (
        "sensitive.mdx",
        r#"tonumber(var.secret)"#,
        "error: cannot use its (sensitive) arguments",
    ),
];

#[test]
fn functions_try_and_can_catch_the_errors_of_their_arguments() {
    check(TRY_CAN);
}

#[test]
fn functions_string_examples_give_terraforms_results() {
    check(STRINGS);
}

#[test]
fn functions_regex_examples_give_terraforms_results() {
    check(REGEX);
}

#[test]
fn functions_format_examples_give_terraforms_results() {
    check(FORMAT);
}

#[test]
fn functions_string_results_keep_unknowns_and_marks() {
    check(MARKS);
}
