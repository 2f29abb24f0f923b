//! The cases of `shared/findings/expressions.md` that liveplan answered differently from Terraform, each
//! with Terraform's answer as that study gives it (the case number names the row): numbers at 512 bits.

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
