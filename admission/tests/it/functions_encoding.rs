//! Encoding, numeric, hash and IP network functions: the examples of Terraform 1.9's function pages
//! and the cases of expressions.md, with Terraform's results.

use super::functions_table::{Row, check};

const ENCODING: &[Row] = &[
    (
        "base64encode.mdx",
        r#"base64encode("Hello World")"#,
        r#""SGVsbG8gV29ybGQ=""#,
    ),
    (
        "base64decode.mdx",
        r#"base64decode("SGVsbG8gV29ybGQ=")"#,
        r#""Hello World""#,
    ),
    (
        "base64decode.mdx",
        r#"base64decode("/w==")"#,
        "error: not valid UTF-8",
    ),
    // A gzip stream always starts 1f 8b 08, which Base64 writes as "H4sI".
    (
        "base64gzip.mdx",
        r#"base64gzip("hello")"#,
        r#"like: ^"H4sI"#,
    ),
    (
        "csvdecode.mdx",
        r#"csvdecode("a,b,c\n1,2,3\n4,5,6")"#,
        r#"[{a = "1", b = "2", c = "3"}, {a = "4", b = "5", c = "6"}]"#,
    ),
    (
        "csvdecode.mdx",
        r#"csvdecode("a,b\n1")"#,
        "error: wrong number of fields",
    ),
    (
        "csvdecode.mdx",
        r#"csvdecode("")"#,
        "error: missing header line",
    ),
    (
        "jsondecode.mdx",
        r#"jsondecode("{\"hello\": \"world\"}")"#,
        r#"{hello = "world"}"#,
    ),
    ("jsondecode.mdx", r#"jsondecode("true")"#, "true"),
    (
        "jsondecode.mdx",
        r#"jsondecode("{")"#,
        "error: not valid JSON",
    ),
    (
        "jsonencode.mdx",
        r#"jsonencode({"hello"="world"})"#,
        r#""{\"hello\":\"world\"}""#,
    ),
    (
        "expressions.md #175",
        "jsonencode(1e20)",
        r#""100000000000000000000""#,
    ),
    (
        "expressions.md #176",
        "jsonencode(0.0000001)",
        r#""0.0000001""#,
    ),
    (
        "jsonencode.mdx",
        r#"jsonencode("<&>")"#,
        r#""\"\\u003c\\u0026\\u003e\"""#,
    ),
    (
        "textencodebase64.mdx",
        r#"textencodebase64("Hello World", "UTF-16LE")"#,
        r#""SABlAGwAbABvACAAVwBvAHIAbABkAA==""#,
    ),
    (
        "textdecodebase64.mdx",
        r#"textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")"#,
        r#""Hello World""#,
    ),
    (
        "textencodebase64.mdx",
        r#"textencodebase64("x", "EBCDIC-NOPE")"#,
        "error: not a supported IANA encoding",
    ),
    (
        "urlencode.mdx",
        r#"urlencode("Hello World!")"#,
        r#""Hello+World%21""#,
    ),
    ("urlencode.mdx", r#"urlencode("☃")"#, r#""%E2%98%83""#),
    (
        "urlencode.mdx",
        r#""http://example.com/search?q=${urlencode("terraform urlencode")}""#,
        r#""http://example.com/search?q=terraform+urlencode""#,
    ),
    (
        "yamldecode.mdx",
        r#"yamldecode("hello: world")"#,
        r#"{hello = "world"}"#,
    ),
    ("yamldecode.mdx", r#"yamldecode("true")"#, "true"),
    (
        "yamldecode.mdx",
        r#"yamldecode("{a: &foo [1, 2, 3], b: *foo}")"#,
        "{a = [1, 2, 3], b = [1, 2, 3]}",
    ),
    ("yamldecode.mdx", r#"yamldecode("a: [")"#, "error: on line"),
    (
        "yamlencode.mdx",
        r#"yamlencode({"a":"b", "c":"d"})"#,
        r#""\"a\": \"b\"\n\"c\": \"d\"\n""#,
    ),
    (
        "yamlencode.mdx",
        r#"yamlencode({"foo":[1, 2, 3], "bar": "baz"})"#,
        r#""\"bar\": \"baz\"\n\"foo\":\n- 1\n- 2\n- 3\n""#,
    ),
    (
        "yamlencode.mdx",
        r#"yamlencode({"foo":[1, {"a":"b","c":"d"}, 3], "bar": "baz"})"#,
        r#""\"bar\": \"baz\"\n\"foo\":\n- 1\n- \"a\": \"b\"\n  \"c\": \"d\"\n- 3\n""#,
    ),
];

const NUMERIC: &[Row] = &[
    ("abs.mdx", "abs(23)", "23"),
    ("abs.mdx", "abs(0)", "0"),
    ("abs.mdx", "abs(-12.4)", "12.4"),
    ("ceil.mdx", "ceil(5)", "5"),
    ("ceil.mdx", "ceil(5.1)", "6"),
    ("floor.mdx", "floor(5)", "5"),
    ("floor.mdx", "floor(4.9)", "4"),
    ("log.mdx", "log(50, 10)", "1.6989700043360185"),
    ("log.mdx", "log(16, 2)", "4"),
    ("log.mdx", "ceil(log(15, 2))", "4"),
    ("log.mdx", "ceil(log(16, 2))", "4"),
    ("log.mdx", "ceil(log(17, 2))", "5"),
    ("max.mdx", "max(12, 54, 3)", "54"),
    ("max.mdx", "max([12, 54, 3]...)", "54"),
    ("min.mdx", "min(12, 54, 3)", "3"),
    ("min.mdx", "min([12, 54, 3]...)", "3"),
    ("parseint.mdx", r#"parseint("100", 10)"#, "100"),
    ("parseint.mdx", r#"parseint("FF", 16)"#, "255"),
    ("parseint.mdx", r#"parseint("-10", 16)"#, "-16"),
    (
        "parseint.mdx",
        r#"parseint("1011111011101111", 2)"#,
        "48879",
    ),
    ("parseint.mdx", r#"parseint("aA", 62)"#, "656"),
    (
        "parseint.mdx",
        r#"parseint("12", 2)"#,
        "error: cannot parse \"12\" as a base 2 integer",
    ),
    ("pow.mdx", "pow(3, 2)", "9"),
    ("pow.mdx", "pow(4, 0)", "1"),
    ("signum.mdx", "signum(-13)", "-1"),
    ("signum.mdx", "signum(0)", "0"),
    ("signum.mdx", "signum(344)", "1"),
    (
        "expressions.md: unknowns",
        "max(1, aws_vpc.pending.id)",
        "unknown(number)",
    ),
    (
        "expressions.md: marks",
        "abs(-length(var.secret))",
        "sensitive(6)",
    ),
];

const HASH: &[Row] = &[
    (
        "md5.mdx",
        r#"md5("hello world")"#,
        r#""5eb63bbbe01eeed093cb22bb8f5acdc3""#,
    ),
    (
        "sha1.mdx",
        r#"sha1("hello world")"#,
        r#""2aae6c35c94fcfb415dbe95f408b9ce91ee846ed""#,
    ),
    (
        "sha256.mdx",
        r#"sha256("hello world")"#,
        r#""b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9""#,
    ),
    (
        "sha512.mdx",
        r#"sha512("hello world")"#,
        r#""309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f""#,
    ),
    (
        "base64sha256.mdx",
        r#"base64sha256("hello world")"#,
        r#""uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=""#,
    ),
    (
        "base64sha512.mdx",
        r#"base64sha512("hello world")"#,
        r#""MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw==""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("dns", "www.terraform.io")"#,
        r#""a5008fae-b28c-5ba5-96cd-82b4c53552d6""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("url", "https://www.terraform.io/")"#,
        r#""9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("oid", "1.3.6.1.4")"#,
        r#""af9d40a5-7a36-5c07-b23a-851cd99fbfa5""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("x500", "CN=Example,C=GB")"#,
        r#""84e09961-4aa4-57f8-95b7-03edb1073253""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.terraform.io")"#,
        r#""a5008fae-b28c-5ba5-96cd-82b4c53552d6""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("743ac3c0-3bf7-4a5b-9e6c-59360447c757", "LIBS:diskfont.library")"#,
        r#""ede1a974-df7e-5f17-84b9-76208818b2c8""#,
    ),
    (
        "uuidv5.mdx",
        r#"uuidv5("nope", "x")"#,
        "error: doesn't support namespace",
    ),
    // Impure functions are unknown at plan time.
    ("uuid.mdx", "uuid()", "unknown(string)"),
    ("timestamp.mdx", "timestamp()", "unknown(string)"),
    ("bcrypt.mdx", r#"bcrypt("hello world")"#, "unknown(string)"),
    (
        "bcrypt.mdx",
        r#"bcrypt("hello world", 2)"#,
        "unknown(string)",
    ),
    (
        "sensitive.mdx",
        "sha1(var.secret)",
        r#"like: ^sensitive\("[0-9a-f]{40}"\)$"#,
    ),
];

const IPNET: &[Row] = &[
    (
        "cidrhost.mdx",
        r#"cidrhost("10.12.112.0/20", 16)"#,
        r#""10.12.112.16""#,
    ),
    (
        "cidrhost.mdx",
        r#"cidrhost("10.12.112.0/20", 268)"#,
        r#""10.12.113.12""#,
    ),
    (
        "cidrhost.mdx",
        r#"cidrhost("fd00:fd12:3456:7890:00a2::/72", 34)"#,
        r#""fd00:fd12:3456:7890::22""#,
    ),
    (
        "cidrhost.mdx",
        r#"cidrhost("10.0.0.0/30", 4)"#,
        "error: does not accommodate a host numbered 4",
    ),
    (
        "cidrhost.mdx",
        r#"cidrhost("10.0.0.0/30", -1)"#,
        r#""10.0.0.3""#,
    ),
    (
        "cidrnetmask.mdx",
        r#"cidrnetmask("172.16.0.0/12")"#,
        r#""255.240.0.0""#,
    ),
    (
        "cidrsubnet.mdx",
        r#"cidrsubnet("172.16.0.0/12", 4, 2)"#,
        r#""172.18.0.0/16""#,
    ),
    (
        "cidrsubnet.mdx",
        r#"cidrsubnet("10.1.2.0/24", 4, 15)"#,
        r#""10.1.2.240/28""#,
    ),
    (
        "cidrsubnet.mdx",
        r#"cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)"#,
        r#""fd00:fd12:3456:7800:a200::/72""#,
    ),
    (
        "expressions.md #183",
        r#"cidrsubnet("::ffff:192.168.0.0/112", 8, 6)"#,
        r#""192.168.6.0/24""#,
    ),
    (
        "expressions.md #185",
        r#"cidrsubnet("010.001.0.0/24", 4, 1)"#,
        r#""10.1.0.16/28""#,
    ),
    (
        "expressions.md #186",
        r#"cidrsubnet("192.168.0.0/30", 4, 6)"#,
        "error: insufficient address space",
    ),
    (
        "expressions.md #187",
        r#"cidrsubnet("192.168.0.0/168", 2, 16)"#,
        "error: invalid CIDR expression",
    ),
    (
        "expressions.md #188",
        r#"cidrsubnet("not-a-cidr", 4, 6)"#,
        "error: invalid CIDR expression",
    ),
    (
        "expressions.md #189",
        r#"cidrsubnet("10.256.0.0/8", 4, 6)"#,
        "error: invalid CIDR expression",
    ),
    (
        "expressions.md #190",
        r#"cidrsubnet("10.0.0.0/8", 8, 256)"#,
        "error: does not accommodate a subnet numbered 256",
    ),
    (
        "expressions.md #191",
        r#"cidrsubnet("10.0.0.0/8", 2.5, 1)"#,
        "error: a whole number is required",
    ),
    (
        "cidrsubnets.mdx",
        r#"cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)"#,
        r#"["10.1.0.0/20", "10.1.16.0/20", "10.1.32.0/24", "10.1.48.0/20"]"#,
    ),
    (
        "cidrsubnets.mdx",
        r#"cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)"#,
        r#"["fd00:fd12:3456:7800::/72", "fd00:fd12:3456:7800:100::/72", "fd00:fd12:3456:7800:200::/72", "fd00:fd12:3456:7800:300::/88"]"#,
    ),
    (
        "cidrsubnets.mdx",
        r#"[for cidr_block in cidrsubnets("10.0.0.0/8", 8, 8, 8, 8) : cidrsubnets(cidr_block, 4, 4)]"#,
        r#"[["10.0.0.0/20", "10.0.16.0/20"], ["10.1.0.0/20", "10.1.16.0/20"], ["10.2.0.0/20", "10.2.16.0/20"], ["10.3.0.0/20", "10.3.16.0/20"]]"#,
    ),
    (
        "cidrsubnets.mdx",
        r#"cidrsubnets("10.0.0.0/30", 1, 1, 1)"#,
        "error: not enough remaining address space",
    ),
];

#[test]
fn functions_encoding_examples_give_terraforms_results() {
    check(ENCODING);
}

#[test]
fn functions_numeric_examples_give_terraforms_results() {
    check(NUMERIC);
}

#[test]
fn functions_hash_examples_give_terraforms_results() {
    check(HASH);
}

#[test]
fn functions_ipnet_examples_give_terraforms_results() {
    check(IPNET);
}
