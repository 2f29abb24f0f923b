//! The cases of `shared/findings/expressions.md` that liveplan answered differently from Terraform, each
//! with Terraform's answer as that study gives it (the case number names the row): numbers at 512 bits,
//! conditionals that unify their branches' types, single-interpolation templates, short-circuit logic and
//! the legacy splat.

use super::functions_table::{Row, check, outcome, with_evaluator};

const NUMBERS: &[Row] = &[
    ("expressions.md #325", "0.1 + 0.2", "0.3"),
    ("expressions.md #326", "tostring(0.1 + 0.2)", "\"0.3\""),
    (
        "expressions.md #341",
        "9007199254740993",
        "9007199254740993",
    ),
    (
        "expressions.md #342",
        "9223372036854775807 + 1",
        "9223372036854775808",
    ),
    (
        "expressions.md #343",
        "-9223372036854775808 - 1",
        "-9223372036854775809",
    ),
    (
        "expressions.md #344",
        "12345678901234567890123 + 1",
        "12345678901234567890124",
    ),
    (
        "expressions.md #345",
        "tostring(12345678901234567890)",
        "\"12345678901234567890\"",
    ),
    (
        "expressions.md #412",
        "9223372036854775807 * 9223372036854775807",
        "85070591730234615847396907784232501249",
    ),
    ("expressions.md #413", "var.big / -1", "9223372036854775808"),
    (
        "expressions.md #413",
        "-9223372036854775808 / -1",
        "9223372036854775808",
    ),
    ("expressions.md #332", "5 % 0", "5"),
    (
        "expressions.md #175",
        "jsonencode(1e20)",
        "\"100000000000000000000\"",
    ),
    (
        "expressions.md #176",
        "jsonencode(0.0000001)",
        "\"0.0000001\"",
    ),
    ("expressions.md #407", "format(\"%x\", -255)", "\"-ff\""),
    (
        "expressions.md #408",
        "element([\"the\", \"quick\", \"brown\", \"fox\"], 9223372036854775807)",
        "\"fox\"",
    ),
    (
        "expressions.md #409",
        "element([\"the\", \"quick\", \"brown\", \"fox\"], -9223372036854775808)",
        "\"the\"",
    ),
    (
        "expressions.md #121",
        "element([\"a\", \"b\", \"c\"], -1)",
        "\"c\"",
    ),
    (
        "expressions.md #123",
        "element([\"the\", \"quick\", \"brown\", \"fox\"], -6)",
        "\"brown\"",
    ),
    (
        "expressions.md #410",
        "cidrsubnet(\"::/0\", 64, 18446744073709551615)",
        "\"ffff:ffff:ffff:ffff::/64\"",
    ),
    ("expressions.md #146", "range(-5)", "[0, -1, -2, -3, -4]"),
];

#[test]
fn numbers_are_terraforms_512_bit_floats() {
    check(NUMBERS);
}

#[test]
fn long_results_have_terraforms_digits() {
    let ev_rows = |src: &str| -> String {
        let mut got = String::new();
        with_evaluator(|ev| got = outcome(ev, src));
        got
    };
    // #324: `/` is never integer division, with about 155 digits.
    let third = ev_rows("10 / 3");
    assert!(third.starts_with("3.3333333333333333333333"), "{third}");
    assert_eq!(third.bytes().filter(u8::is_ascii_digit).count(), 155);
    // #327
    let tenth = ev_rows("1 - 0.9");
    assert!(tenth.starts_with("0.1000000000000000000000"), "{tenth}");
    assert_eq!(tenth.bytes().filter(u8::is_ascii_digit).count(), 156);
    // #346: no float overflow; the study gives the leading digits and the length.
    let product = ev_rows("1e300 * 1e10");
    assert!(product.starts_with("100000000000000000000000"), "{product}");
    assert_eq!(product.bytes().filter(u8::is_ascii_digit).count(), 311);
}

const EXPRESSIONS: &[Row] = &[
    // Templates of one interpolation are unwrapped.
    ("expressions.md #206", "\"${true}\"", "true"),
    ("expressions.md #207", "\"${1 + 1}\"", "2"),
    ("expressions.md #208", "\"${null}\"", "null"),
    ("expressions.md #414", "\"${var.l}\"", "[\"a\", \"b\"]"),
    ("expressions.md #415", "\"${var.m}\"", "{k = \"v\"}"),
    (
        "hclsyntax spec.md, unwrapping",
        "\"hello ${true}\"",
        "\"hello true\"",
    ),
    (
        "hclsyntax spec.md, unwrapping",
        "\"${\"\"}${true}\"",
        "\"true\"",
    ),
    // Conditionals unify their branches' types.
    ("expressions.md #272", "true ? 12 : \"hello\"", "\"12\""),
    (
        "expressions.md #276",
        "true ? \"a\" : []",
        "error: Inconsistent conditional result types",
    ),
    (
        "expressions.md #283",
        "true ? {a = 1} : {b = \"x\"}",
        "{a = \"1\"}",
    ),
    (
        "hclsyntax spec.md, Conditional Operator",
        "aws_vpc.pending.id == \"\" ? 1 : \"a\"",
        "unknown(string)",
    ),
    (
        "hclsyntax spec.md, Conditional Operator",
        "length([]) > 0 ? [][0] : \"default\"",
        "\"default\"",
    ),
    // `&&` and `||` short-circuit (Terraform 1.12).
    ("expressions.md #357", "false && (1 / 0 > 1)", "false"),
    (
        "expressions.md #358",
        "var.nullobj != null && var.nullobj.is_thingy",
        "false",
    ),
    (
        "expressions.md #359",
        "var.nullobj == null || var.nullobj.is_thingy",
        "true",
    ),
    ("expressions.md #360", "true || [][0]", "true"),
    // The legacy splat applies a trailing index to its result.
    (
        "expressions.md #264",
        "var.machines.*.interfaces[0]",
        "[{name = \"eth0\"}]",
    ),
    (
        "splat.mdx",
        "var.machines[*].interfaces[0].name",
        "[\"eth0\", \"eth1\"]",
    ),
    // Heredocs: strip markers trim the line next to them, then `<<-` trims the indentation.
    (
        "expressions.md #233",
        "<<-EOT\n  %{ for x in [1, 2] ~}\n  n${x}\n  %{ endfor ~}\n  EOT",
        "\"  n1\\n  n2\\n\"",
    ),
    (
        "strings.mdx, strip markers",
        "<<EOT\n%{ for ip in [\"10.1.16.154\", \"10.1.16.1\"] ~}\nserver ${ip}\n%{ endfor ~}\nEOT",
        "\"server 10.1.16.154\\nserver 10.1.16.1\\n\"",
    ),
    (
        "strings.mdx, indented heredocs",
        "<<-EOT\n  hello\n    world\n  EOT",
        "\"hello\\n  world\\n\"",
    ),
    // Text is measured in grapheme clusters.
    ("expressions.md #75", "length(\"👾🕹️\")", "2"),
    ("expressions.md #77", "length(\"noe\u{308}l\")", "4"),
];

#[test]
fn expressions_unify_unwrap_and_short_circuit_as_terraform() {
    check(EXPRESSIONS);
}
