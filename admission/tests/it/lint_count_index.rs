//! The `count.index` injectivity rule for identity arguments, as a table of admitted and refused forms.

use admission::Code;
use admission::VariableInputs;
use rstest::rstest;

const PRELUDE: &str = r#"
live {
  estate = "acme"
}
variable "n" {
  default = 2
}
variable "names" {
  type    = list(string)
  default = ["a", "b", "c"]
}
locals {
  offset = 10
}
resource "aws_subnet" "s" {
  count      = 3
  vpc_id     = aws_vpc.v.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
resource "aws_vpc" "v" {
  cidr_block = "10.0.0.0/16"
}
resource "aws_route_table" "t" {
  count  = 3
  vpc_id = aws_vpc.v.id
}
"#;

/// The `count-index` diagnostics of a configuration: (address, line, column) of each.
fn count_index_errors(body: &str) -> Vec<(String, usize, usize)> {
    let text = format!("{PRELUDE}{body}");
    crate::lint_main(&text, &VariableInputs::default())
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::CountIndex)
        .map(|d| {
            let pos = d.pos.clone().unwrap();
            (d.address.clone().unwrap(), pos.line, pos.column)
        })
        .collect()
}

/// A client-named bucket whose single identity argument is `name_expr`.
fn single(name_expr: &str) -> String {
    format!("resource \"aws_s3_bucket\" \"b\" {{\n  count  = 3\n  bucket = {name_expr}\n}}\n")
}

#[rstest]
// Admitted forms.
#[case::bare_index("count.index", true)]
#[case::plus_literal("count.index + 1", true)]
#[case::literal_plus_index("100 + count.index", true)]
#[case::minus_variable("count.index - var.n", true)]
#[case::plus_local("count.index + local.offset", true)]
#[case::times_nonzero_literal("count.index * 2", true)]
#[case::times_negative_literal("-3 * count.index", true)]
#[case::format_of_index(r#"format("acme-%03d", count.index)"#, true)]
#[case::format_of_shifted_index(r#"format("%s-%d", var.names[0], count.index + 1)"#, true)]
#[case::template(r#""acme-${count.index}-${var.n}""#, true)]
#[case::template_of_product(r#""acme-${count.index * 10}""#, true)]
#[case::conditional_free_condition(r#"var.n > 1 ? "acme-${count.index}" : "acme-x""#, true)]
#[case::other_blocks_instance("aws_subnet.s[count.index].id", true)]
#[case::other_blocks_shifted_instance("aws_route_table.t[count.index + 0].id", true)]
#[case::index_free("\"acme-fixed\"", true)]
// Refused forms.
#[case::modulo(r#"100 + (count.index % 3)"#, false)]
#[case::times_variable("count.index * var.n", false)]
#[case::times_zero("count.index * 0", false)]
#[case::index_minus_index("count.index - count.index", false)]
#[case::index_times_index("count.index * count.index", false)]
#[case::divided("count.index / 2", false)]
#[case::list_lookup("var.names[count.index]", false)]
#[case::template_of_modulo(r#""acme-${count.index % 2}""#, false)]
#[case::format_of_modulo(r#"format("acme-%d", count.index % 2)"#, false)]
#[case::format_string_from_index(r#"format(count.index == 0 ? "a%d" : "b%d", 1)"#, false)]
#[case::condition_reads_index(r#"count.index > 0 ? "acme-a" : "acme-b""#, false)]
#[case::branch_refused(r#"var.n > 1 ? "acme-${count.index % 2}" : "acme-x""#, false)]
#[case::function_of_index("tostring(count.index)", false)]
#[case::other_blocks_instance_by_modulo("aws_subnet.s[count.index % 2].id", false)]
fn lint_count_index_single_identity_argument(#[case] expr: &str, #[case] admitted: bool) {
    let errors = count_index_errors(&single(expr));
    if admitted {
        assert_eq!(errors, vec![], "{expr} should be admitted");
    } else {
        // The prelude is 26 lines; the resource starts on line 27 and `bucket` sits on line 29, value at col 12.
        assert_eq!(
            errors,
            vec![("aws_s3_bucket.b".to_string(), 29, 12)],
            "{expr} should be refused"
        );
    }
}

/// A route whose composite identity is (route table id, destination).
fn route(table: &str, destination: &str) -> String {
    format!(
        "resource \"aws_route\" \"r\" {{\n  count                  = 3\n  route_table_id         = {table}\n  destination_cidr_block = {destination}\n}}\n"
    )
}

#[rstest]
// One admitted component makes the tuple injective, whatever the other does.
#[case::parent_admitted_destination_fixed("aws_route_table.t[count.index].id", "\"0.0.0.0/0\"", &[])]
#[case::parent_admitted_destination_refused(
    "aws_route_table.t[count.index].id",
    "\"10.${count.index % 2}.0.0/16\"",
    &[]
)]
#[case::parent_fixed_destination_admitted("aws_route_table.t[0].id", "\"10.${count.index}.0.0/16\"", &[])]
// No admitted component: every component that reads the index is refused.
#[case::both_refused(
    "aws_route_table.t[count.index % 2].id",
    "\"10.${count.index % 2}.0.0/16\"",
    &[(29, 28), (30, 28)]
)]
#[case::one_refused_other_free("aws_route_table.t[0].id", "\"10.${count.index % 2}.0.0/16\"", &[(30, 28)])]
fn lint_count_index_composite_parent_derived_identity(
    #[case] table: &str,
    #[case] destination: &str,
    #[case] refused_at: &[(usize, usize)],
) {
    let errors = count_index_errors(&route(table, destination));
    let expected: Vec<(String, usize, usize)> = refused_at
        .iter()
        .map(|(l, c)| ("aws_route.r".to_string(), *l, *c))
        .collect();
    assert_eq!(errors, expected, "({table}, {destination})");
}

#[test]
fn lint_count_index_reports_every_violation_and_is_free_outside_identities() {
    let body = r#"resource "aws_iam_user" "a" {
  count = 2
  name  = "a-${count.index % 2}"
}
resource "aws_iam_user" "b" {
  count = 2
  name  = "b-${count.index * var.n}"
  path  = "/${count.index % 2}/"
}
resource "aws_vpc" "free" {
  count      = 2
  cidr_block = "10.${count.index % 2}.0.0/16"
}
"#;
    assert_eq!(
        count_index_errors(body),
        vec![
            ("aws_iam_user.a".to_string(), 29, 11),
            ("aws_iam_user.b".to_string(), 33, 11)
        ]
    );
}
