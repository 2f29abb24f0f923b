//! Collection and set functions: the examples of Terraform 1.9's function pages and the cases of
//! expressions.md, with Terraform's results.

use super::functions_table::{Row, check};

const COLLECTION: &[Row] = &[
    ("alltrue.mdx", r#"alltrue(["true", true])"#, "true"),
    ("alltrue.mdx", "alltrue([true, false])", "false"),
    ("alltrue.mdx", "alltrue([])", "true"),
    ("anytrue.mdx", r#"anytrue(["true"])"#, "true"),
    ("anytrue.mdx", "anytrue([true])", "true"),
    ("anytrue.mdx", "anytrue([true, false])", "true"),
    ("anytrue.mdx", "anytrue([])", "false"),
    (
        "chunklist.mdx",
        r#"chunklist(["a", "b", "c", "d", "e"], 2)"#,
        r#"[["a", "b"], ["c", "d"], ["e"]]"#,
    ),
    (
        "chunklist.mdx",
        r#"chunklist(["a", "b", "c", "d", "e"], 1)"#,
        r#"[["a"], ["b"], ["c"], ["d"], ["e"]]"#,
    ),
    ("coalesce.mdx", r#"coalesce("a", "b")"#, r#""a""#),
    ("coalesce.mdx", r#"coalesce("", "b")"#, r#""b""#),
    ("coalesce.mdx", "coalesce(1, 2)", "1"),
    ("coalesce.mdx", r#"coalesce(["", "b"]...)"#, r#""b""#),
    ("expressions.md #134", r#"coalesce(1, "hello")"#, r#""1""#),
    (
        "expressions.md #135",
        r#"coalesce(true, "hello")"#,
        r#""true""#,
    ),
    (
        "expressions.md #136",
        r#"coalesce({}, "hello")"#,
        "error: all arguments must have the same type",
    ),
    (
        "expressions.md #139",
        r#"coalesce(null, false, "hello")"#,
        r#""false""#,
    ),
    (
        "expressions.md #137",
        r#"coalesce("", "")"#,
        "error: no non-null, non-empty-string arguments",
    ),
    (
        "coalescelist.mdx",
        r#"coalescelist(["a", "b"], ["c", "d"])"#,
        r#"["a", "b"]"#,
    ),
    (
        "coalescelist.mdx",
        r#"coalescelist([], ["c", "d"])"#,
        r#"["c", "d"]"#,
    ),
    (
        "coalescelist.mdx",
        r#"coalescelist([[], ["c", "d"]]...)"#,
        r#"["c", "d"]"#,
    ),
    (
        "compact.mdx",
        r#"compact(["a", "", "b", null, "c"])"#,
        r#"["a", "b", "c"]"#,
    ),
    (
        "concat.mdx",
        r#"concat(["a", ""], ["b", "c"])"#,
        r#"["a", "", "b", "c"]"#,
    ),
    (
        "expressions.md #57",
        r#"concat(["a"], "b")"#,
        "error: a list, tuple or set is required",
    ),
    ("contains.mdx", r#"contains(["a", "b", "c"], "a")"#, "true"),
    ("contains.mdx", r#"contains(["a", "b", "c"], "d")"#, "false"),
    (
        "distinct.mdx",
        r#"distinct(["a", "b", "a", "c", "d", "b"])"#,
        r#"["a", "b", "c", "d"]"#,
    ),
    ("element.mdx", r#"element(["a", "b", "c"], 1)"#, r#""b""#),
    ("element.mdx", r#"element(["a", "b", "c"], 3)"#, r#""a""#),
    (
        "expressions.md #121",
        r#"element(["a", "b", "c"], -1)"#,
        r#""c""#,
    ),
    (
        "expressions.md #123",
        r#"element(["the", "quick", "brown", "fox"], -6)"#,
        r#""brown""#,
    ),
    // expressions.md #408 and #409 (indexes ±2^63) still differ: number literals are read as f64, so
    // 9223372036854775807 is not a whole number within i64 here (the number model's limit).
    (
        "expressions.md #124",
        "element([], 0)",
        "error: cannot use element function with an empty list",
    ),
    (
        "expressions.md #125",
        r#"element(["a", "b"], 0.5)"#,
        "error: invalid index",
    ),
    (
        "flatten.mdx",
        r#"flatten([["a", "b"], [], ["c"]])"#,
        r#"["a", "b", "c"]"#,
    ),
    (
        "flatten.mdx",
        r#"flatten([[["a", "b"], []], ["c"]])"#,
        r#"["a", "b", "c"]"#,
    ),
    ("index.mdx", r#"index(["a", "b", "c"], "b")"#, "1"),
    (
        "index.mdx",
        r#"index(["a", "b", "c"], "z")"#,
        "error: item not found",
    ),
    ("keys.mdx", "keys({a=1, c=2, d=3})", r#"["a", "c", "d"]"#),
    (
        "expressions.md #118",
        r#"keys("x")"#,
        "error: must have map or object type",
    ),
    ("length.mdx", "length([])", "0"),
    ("length.mdx", r#"length(["a", "b"])"#, "2"),
    ("length.mdx", r#"length({"a" = "b"})"#, "1"),
    (
        "expressions.md #80",
        "length(5)",
        "error: argument must be a string, a collection type, or a structural type",
    ),
    (
        "expressions.md #81",
        "length(null)",
        "error: argument must not be null",
    ),
    (
        "lookup.mdx",
        r#"lookup({a="ay", b="bee"}, "a", "what?")"#,
        r#""ay""#,
    ),
    (
        "lookup.mdx",
        r#"lookup({a="ay", b="bee"}, "c", "what?")"#,
        r#""what?""#,
    ),
    (
        "expressions.md #67",
        r#"lookup({foo = "bar"}, "bar")"#,
        "error: lookup failed to find key \"bar\"",
    ),
    (
        "expressions.md #70",
        r#"lookup({a = "x"}, "a", "d", "e")"#,
        "error: takes 2 to 3 argument(s), 4 given",
    ),
    (
        "matchkeys.mdx",
        r#"matchkeys(["i-123", "i-abc", "i-def"], ["us-west", "us-east", "us-east"], ["us-east"])"#,
        r#"["i-abc", "i-def"]"#,
    ),
    (
        "matchkeys.mdx",
        r#"matchkeys(["a", "b"], ["x"], ["x"])"#,
        "error: length of keys and values should be equal",
    ),
    (
        "merge.mdx",
        r#"merge({a="b", c="d"}, {e="f", c="z"})"#,
        r#"{a = "b", c = "z", e = "f"}"#,
    ),
    (
        "merge.mdx",
        r#"merge({a="b"}, {a=[1,2], c="z"}, {d=3})"#,
        r#"{a = [1, 2], c = "z", d = 3}"#,
    ),
    (
        "expressions.md #63",
        r#"merge({a = 1}, "x")"#,
        "error: arguments must be maps or objects",
    ),
    ("one.mdx", "one([])", "null"),
    ("one.mdx", r#"one(["hello"])"#, r#""hello""#),
    (
        "one.mdx",
        r#"one(["hello", "goodbye"])"#,
        "error: either zero or one elements",
    ),
    ("one.mdx", "one(toset([]))", "null"),
    ("one.mdx", r#"one(toset(["hello"]))"#, r#""hello""#),
    ("range.mdx", "range(3)", "[0, 1, 2]"),
    ("range.mdx", "range(1, 4)", "[1, 2, 3]"),
    ("range.mdx", "range(1, 8, 2)", "[1, 3, 5, 7]"),
    ("range.mdx", "range(1, 4, 0.5)", "[1, 1.5, 2, 2.5, 3, 3.5]"),
    ("range.mdx", "range(4, 1)", "[4, 3, 2]"),
    ("range.mdx", "range(10, 5, -2)", "[10, 8, 6]"),
    ("expressions.md #146", "range(-5)", "[0, -1, -2, -3, -4]"),
    (
        "expressions.md #150",
        "range(5, 0, 1)",
        "error: end must be greater than start when step is positive",
    ),
    (
        "expressions.md #151",
        "range(0, 2000)",
        "error: more than 1024 values were generated",
    ),
    ("reverse.mdx", "reverse([1, 2, 3])", "[3, 2, 1]"),
    (
        "slice.mdx",
        r#"slice(["a", "b", "c", "d"], 1, 3)"#,
        r#"["b", "c"]"#,
    ),
    (
        "sort.mdx",
        r#"sort(["e", "d", "a", "x"])"#,
        r#"["a", "d", "e", "x"]"#,
    ),
    ("sum.mdx", "sum([10, 13, 6, 4.5])", "33.5"),
    ("sum.mdx", "sum([])", "error: cannot sum an empty list"),
    (
        "transpose.mdx",
        r#"transpose({"a" = ["1", "2"], "b" = ["2", "3"]})"#,
        r#"{1 = ["a"], 2 = ["a", "b"], 3 = ["b"]}"#,
    ),
    ("values.mdx", r#"values({a=3, c=2, d=1})"#, "[3, 2, 1]"),
    (
        "zipmap.mdx",
        r#"zipmap(["a", "b"], [1, 2])"#,
        "{a = 1, b = 2}",
    ),
    (
        "zipmap.mdx",
        r#"zipmap(["a"], [1, 2])"#,
        "error: number of keys (1) does not match number of values (2)",
    ),
];

const SETS: &[Row] = &[
    (
        "setintersection.mdx",
        r#"setintersection(["a", "b"], ["b", "c"], ["b", "d"])"#,
        r#"set["b"]"#,
    ),
    (
        "setsubtract.mdx",
        r#"setsubtract(["a", "b", "c"], ["a", "c"])"#,
        r#"set["b"]"#,
    ),
    (
        "setsubtract.mdx",
        r#"setunion(setsubtract(["a", "b", "c"], ["a", "c", "d"]), setsubtract(["a", "c", "d"], ["a", "b", "c"]))"#,
        r#"set["b", "d"]"#,
    ),
    (
        "setunion.mdx",
        r#"setunion(["a", "b"], ["b", "c"], ["d"])"#,
        r#"set["a", "b", "c", "d"]"#,
    ),
    (
        "setproduct.mdx",
        r#"setproduct(["development", "staging", "production"], ["app1", "app2"])"#,
        r#"[["development", "app1"], ["development", "app2"], ["staging", "app1"], ["staging", "app2"], ["production", "app1"], ["production", "app2"]]"#,
    ),
    (
        "setproduct.mdx",
        r#"setproduct(["a"])"#,
        "error: at least two arguments are required",
    ),
    ("setproduct.mdx", r#"setproduct(["a", "b"], [])"#, "[]"),
];

const CONVERSION: &[Row] = &[
    ("tobool.mdx", "tobool(true)", "true"),
    ("tobool.mdx", r#"tobool("true")"#, "true"),
    ("tobool.mdx", "tobool(null)", "null"),
    ("tobool.mdx", r#"tobool("no")"#, "error: cannot convert"),
    (
        "tobool.mdx",
        "tobool(1)",
        "error: cannot convert number to bool",
    ),
    ("tonumber.mdx", "tonumber(1)", "1"),
    ("tonumber.mdx", r#"tonumber("1")"#, "1"),
    ("tonumber.mdx", "tonumber(null)", "null"),
    (
        "expressions.md #91",
        r#"tonumber("no")"#,
        "error: string must be a decimal representation of a number",
    ),
    (
        "expressions.md #93",
        "tonumber(true)",
        "error: cannot convert bool to number",
    ),
    (
        "expressions.md #94",
        r#"tonumber("0x10")"#,
        "error: string must be a decimal representation of a number",
    ),
    ("tostring.mdx", r#"tostring("hello")"#, r#""hello""#),
    ("tostring.mdx", "tostring(1)", r#""1""#),
    ("tostring.mdx", "tostring(true)", r#""true""#),
    ("tostring.mdx", "tostring(null)", "null"),
    (
        "expressions.md #86",
        "tostring([])",
        "error: cannot convert",
    ),
    (
        "tolist.mdx",
        r#"tolist(["a", "b", "c"])"#,
        r#"["a", "b", "c"]"#,
    ),
    (
        "tolist.mdx",
        r#"tolist(["a", "b", 3])"#,
        r#"["a", "b", "3"]"#,
    ),
    (
        "expressions.md #108",
        "tolist([1, [2]])",
        "error: all elements must have the same type",
    ),
    (
        "toset.mdx",
        r#"toset(["a", "b", "c"])"#,
        r#"set["a", "b", "c"]"#,
    ),
    (
        "toset.mdx",
        r#"toset(["a", "b", 3])"#,
        r#"set["3", "a", "b"]"#,
    ),
    ("toset.mdx", r#"toset(["c", "b", "b"])"#, r#"set["b", "c"]"#),
    (
        "tomap.mdx",
        r#"tomap({"a" = 1, "b" = 2})"#,
        "{a = 1, b = 2}",
    ),
    (
        "tomap.mdx",
        r#"tomap({"a" = "foo", "b" = true})"#,
        r#"{a = "foo", b = "true"}"#,
    ),
    (
        "expressions.md #111",
        "tomap({a = 1, b = [1]})",
        "error: all elements must have the same type",
    ),
    ("sensitive.mdx", "sensitive(1)", "sensitive(1)"),
    (
        "sensitive.mdx",
        r#"sensitive("hello")"#,
        r#"sensitive("hello")"#,
    ),
    ("sensitive.mdx", "sensitive([])", "sensitive([])"),
    (
        "nonsensitive.mdx",
        "nonsensitive(var.secret)",
        r#""s3cr3t""#,
    ),
    (
        "nonsensitive.mdx",
        "nonsensitive(upper(var.secret))",
        r#""S3CR3T""#,
    ),
    ("nonsensitive.mdx", r#"nonsensitive("x")"#, r#""x""#),
    (
        "issensitive.mdx",
        r#"issensitive(sensitive("secret"))"#,
        "true",
    ),
    ("issensitive.mdx", r#"issensitive("hello")"#, "false"),
    ("issensitive.mdx", "issensitive(var.secret)", "true"),
];

const UNKNOWNS: &[Row] = &[
    (
        "expressions.md: unknowns",
        "length(aws_vpc.pending.id)",
        "unknown(number)",
    ),
    (
        "expressions.md: unknowns",
        "length([aws_vpc.pending.id])",
        "1",
    ),
    (
        "expressions.md: unknowns",
        "distinct([aws_vpc.pending.id])",
        "unknown(list(any))",
    ),
    (
        "expressions.md: unknowns",
        "setunion([aws_vpc.pending.id])",
        "unknown(set(any))",
    ),
    (
        "expressions.md: unknowns",
        "keys({a = aws_vpc.pending.id})",
        r#"["a"]"#,
    ),
    (
        "expressions.md: unknowns",
        "sum([1, aws_vpc.pending.id])",
        "unknown(number)",
    ),
    (
        "expressions.md: marks",
        "merge({a = 1}, {b = var.secret})",
        r#"{a = 1, b = sensitive("s3cr3t")}"#,
    ),
    (
        "expressions.md: marks",
        "sort([var.secret])",
        r#"sensitive(["s3cr3t"])"#,
    ),
];

#[test]
fn functions_collection_examples_give_terraforms_results() {
    check(COLLECTION);
}

#[test]
fn functions_set_examples_give_terraforms_results() {
    check(SETS);
}

#[test]
fn functions_type_conversion_examples_give_terraforms_results() {
    check(CONVERSION);
}

#[test]
fn functions_collection_results_keep_unknowns_and_marks() {
    check(UNKNOWNS);
}
