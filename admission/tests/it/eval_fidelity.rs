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
    // #411: a literal past a 64-bit float is a number, written in a configuration as in an expression.
    let big = ev_rows("1e400");
    assert_eq!(big, format!("1{}", "0".repeat(400)), "{big}");
    assert_eq!(ev_rows("-1.5e400 / 1e400"), "-1.5");
    // A 331-digit integer literal; adding 1 is lost in the 512-bit mantissa (about 154 digits), as in
    // Terraform.
    let long = format!("1{}", "0".repeat(330));
    assert_eq!(ev_rows(&format!("{long} + 1")), long);
    let file = admission::SourceFile::new(
        "main.tf",
        "locals {\n  big = 1e400 # not \"1e400\"\n}\noutput \"big\" {\n  value = local.big\n}\n",
    );
    let (_, diags) = admission::parse_config(&[file]);
    assert_eq!(diags, vec![], "a configuration may write 1e400");
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

const STRUCTURAL: &[Row] = &[
    // `==` compares type and value: a list is never a tuple, nor a map an object.
    ("expressions.md #366", "tolist([]) == []", "false"),
    ("expressions.md #367", "tolist([\"a\"]) == [\"a\"]", "false"),
    ("expressions.md #370", "tomap({a = 1}) == {a = 1}", "false"),
    ("operators.mdx", "tomap({a = 1}) != {a = 1}", "true"),
    ("operators.mdx", "[] == []", "true"),
    ("operators.mdx", "{} == {}", "true"),
    (
        "operators.mdx",
        "tolist([\"a\"]) == tolist([\"a\"])",
        "true",
    ),
    ("operators.mdx", "tomap({a = 1}) == tomap({a = 1})", "true"),
    ("operators.mdx", "[tolist([])] == [[]]", "false"),
    ("operators.mdx", "{a = tomap({})} == {a = {}}", "false"),
    ("operators.mdx", "1 == \"1\"", "false"),
    // A variable has its declared type; one without a type has its literal's.
    (
        "operators.mdx, `var.list == []`",
        "var.empty_names == []",
        "false",
    ),
    ("operators.mdx", "length(var.empty_names) == 0", "true"),
    ("operators.mdx", "var.names == [\"a\", \"b\"]", "false"),
    (
        "operators.mdx",
        "var.names == tolist([\"a\", \"b\"])",
        "true",
    ),
    ("operators.mdx", "var.l == [\"a\", \"b\"]", "true"),
    ("operators.mdx", "var.tags == {env = \"dev\"}", "false"),
    (
        "operators.mdx",
        "var.tags == tomap({env = \"dev\"})",
        "true",
    ),
    ("operators.mdx", "var.server.ports == [80]", "false"),
    (
        "operators.mdx",
        "var.server == {name = \"web\", ports = [80]}",
        "false",
    ),
    ("operators.mdx", "local.names == var.names", "true"),
    ("operators.mdx", "local.pair == {name = \"web\"}", "true"),
    // Nulls of any types are equal; an unknown stays unknown, a known element does not hide the kind.
    ("operators.mdx", "var.nullobj == null", "true"),
    (
        "operators.mdx",
        "aws_vpc.pending.tags == {}",
        "unknown(bool)",
    ),
    (
        "operators.mdx",
        "tolist([aws_vpc.pending.id]) == []",
        "false",
    ),
    // The answer keeps the operands' sensitivity.
    (
        "operators.mdx",
        "tolist([var.secret]) == [var.secret]",
        "sensitive(false)",
    ),
    (
        "for.mdx",
        "[for x in var.names : x if x == \"z\"] == []",
        "true",
    ),
    // A `for` expression makes a tuple or an object, whatever it iterates.
    ("for.mdx", "[for x in var.names : x] == var.names", "false"),
    (
        "for.mdx",
        "tolist([for x in var.names : x]) == var.names",
        "true",
    ),
    (
        "for.mdx",
        "[for x in var.names : x] == [\"a\", \"b\"]",
        "true",
    ),
    (
        "for.mdx",
        "{for k, v in var.tags : k => v} == var.tags",
        "false",
    ),
    (
        "for.mdx",
        "{for k, v in var.tags : k => v} == {env = \"dev\"}",
        "true",
    ),
    // `concat` of lists of one type is a list, otherwise a tuple; `merge` of one type keeps it.
    (
        "concat.mdx",
        "concat(var.names, [\"c\"]) == [\"a\", \"b\", \"c\"]",
        "true",
    ),
    (
        "concat.mdx",
        "concat(var.names, tolist([\"c\"])) == [\"a\", \"b\", \"c\"]",
        "false",
    ),
    (
        "concat.mdx",
        "concat(var.names, tolist([\"c\"])) == tolist([\"a\", \"b\", \"c\"])",
        "true",
    ),
    (
        "merge.mdx",
        "merge({a = 1}, {b = 2}) == {a = 1, b = 2}",
        "true",
    ),
    (
        "merge.mdx",
        "merge(var.tags, {team = \"x\"}) == {env = \"dev\", team = \"x\"}",
        "true",
    ),
    (
        "merge.mdx",
        "merge(var.tags, tomap({team = \"x\"})) == {env = \"dev\", team = \"x\"}",
        "false",
    ),
    ("keys.mdx", "keys(var.tags) == [\"env\"]", "false"),
    ("keys.mdx", "keys({env = \"dev\"}) == [\"env\"]", "true"),
    // Sets compare as sets.
    (
        "toset.mdx",
        "toset([\"a\", \"b\"]) == toset([\"b\", \"a\"])",
        "true",
    ),
    (
        "toset.mdx",
        "toset(var.names) == toset([\"b\", \"a\"])",
        "true",
    ),
    ("toset.mdx", "toset([\"a\"]) == [\"a\"]", "false"),
    // A conditional unifies an object and a map into a map, the map's element type winning.
    (
        "conditionals.mdx",
        "true ? tomap({a = 1}) : {b = \"x\"}",
        "{a = 1}",
    ),
    (
        "conditionals.mdx",
        "true ? {a = 1} : tomap({b = \"x\"})",
        "{a = \"1\"}",
    ),
    (
        "conditionals.mdx",
        "(true ? {a = 1} : tomap({b = 2})) == tomap({a = 1})",
        "true",
    ),
    (
        "conditionals.mdx",
        "(true ? {a = 1} : tomap({b = 2})) == {a = 1}",
        "false",
    ),
    // `lookup` converts its default to a map's element type; an object's default stays as it is.
    (
        "expressions.md #68",
        "lookup(tomap({foo = \"bar\"}), \"foobar\", -1)",
        "\"-1\"",
    ),
    ("lookup.mdx", "lookup(var.tags, \"team\", 1)", "\"1\""),
    (
        "lookup.mdx",
        "lookup({foo = \"bar\"}, \"foobar\", -1)",
        "-1",
    ),
    // Number and bool have no type in common: `true ? 1 : true` is Terraform's error (see
    // docs/decisions.md).
    (
        "expressions.md #281",
        "true ? 1 : true",
        "error: Inconsistent conditional result types",
    ),
];

#[test]
fn equality_tells_lists_from_tuples_and_maps_from_objects() {
    check(STRUCTURAL);
}

const FORMAT: &[Row] = &[
    (
        "expressions.md #3",
        "format(\"%[1]s%[2]s%[1]s%[3]s\", \"/\", \"path\", \"file.tf\")",
        "\"/path/file.tf\"",
    ),
    (
        "expressions.md #4",
        "format(\"%#v\", \"hello\")",
        "\"\\\"hello\\\"\"",
    ),
    (
        "format.mdx, %#v",
        "format(\"%#v\", [1, \"a\"])",
        "\"[1,\\\"a\\\"]\"",
    ),
    ("format.mdx, %v", "format(\"%v\", true)", "\"true\""),
    ("format.mdx, %v", "format(\"%v\", null)", "\"null\""),
    // `%v` of a number is `%g`: exponent form from an exponent of 6 up.
    ("format.mdx, %v", "format(\"%v\", 100000)", "\"100000\""),
    (
        "format.mdx, %v",
        "format(\"%v\", 1234567)",
        "\"1.234567e+06\"",
    ),
    ("format.mdx, %v", "format(\"%v\", 0.5)", "\"0.5\""),
    ("format.mdx, %g", "format(\"%g\", 0.00001)", "\"1e-05\""),
    // An index chooses the argument, and the ones after it follow on.
    (
        "format.mdx",
        "format(\"%[2]s %s\", \"a\", \"b\", \"c\")",
        "\"b c\"",
    ),
    // Width and precision; zero is the same as none for strings.
    (
        "format.mdx, width",
        "format(\"%9.2f\", 3.14159)",
        "\"     3.14\"",
    ),
    (
        "format.mdx, width",
        "format(\"%-6s|\", \"ab\")",
        "\"ab    |\"",
    ),
    (
        "format.mdx, width",
        "format(\"%6q\", \"ab\")",
        "\"  \\\"ab\\\"\"",
    ),
    ("format.mdx, width", "format(\"%.2s\", \"abc\")", "\"ab\""),
    ("format.mdx, width", "format(\"%.0s\", \"abc\")", "\"abc\""),
    (
        "format.mdx, width",
        "format(\"%.2q\", \"abc\")",
        "\"\\\"ab\\\"\"",
    ),
    // Flags: space and `+` for the sign, `-` pads on the right, `0` with zeros.
    ("format.mdx, flags", "format(\"% d\", 5)", "\" 5\""),
    ("format.mdx, flags", "format(\"%+d\", 5)", "\"+5\""),
    ("format.mdx, flags", "format(\"%05d\", -42)", "\"-0042\""),
    ("format.mdx, flags", "format(\"%-5d|\", 42)", "\"42   |\""),
    ("format.mdx, flags", "format(\"%+.2f\", 1.5)", "\"+1.50\""),
    (
        "format.mdx, flags",
        "format(\"%08.3f\", -3.14159)",
        "\"-003.142\"",
    ),
    ("format.mdx, flags", "format(\"%05s\", \"ab\")", "\"000ab\""),
    // Integer verbs as Go prints big integers: `#` adds the base prefix, a precision the fewest digits.
    ("format.mdx, flags", "format(\"%#x\", 255)", "\"0xff\""),
    ("format.mdx, flags", "format(\"%#X\", 255)", "\"0XFF\""),
    ("format.mdx, flags", "format(\"%#o\", 8)", "\"010\""),
    ("format.mdx, flags", "format(\"%#b\", 5)", "\"0b101\""),
    ("format.mdx, flags", "format(\"%.3d\", 7)", "\"007\""),
    ("format.mdx, flags", "format(\"%6.3d\", 7)", "\"   007\""),
    ("format.mdx, flags", "format(\"%08b\", 5)", "\"00000101\""),
    // `%t` is never padded.
    ("format.mdx, %t", "format(\"%6t\", true)", "\"true\""),
];

#[test]
fn format_verbs_flags_and_indexes_are_terraforms() {
    check(FORMAT);
}
