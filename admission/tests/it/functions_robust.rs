//! No input makes a built-in function panic: every function, called with every pair of awkward
//! arguments (null, unknown, sensitive, empty, huge, negative, nested, malformed), returns a value or
//! an error; and its error never quotes the sensitive argument.

use admission::{AllUnknown, Evaluator, Instance, SourceFile, parse_config, parse_expression};

/// Every built-in function of Terraform 1.9 that the README lists.
const NAMES: &str = "abs ceil floor log max min parseint pow signum chomp endswith format formatlist indent join lower regex regexall replace split startswith strcontains strrev substr templatestring title trim trimprefix trimspace trimsuffix upper alltrue anytrue chunklist coalesce coalescelist compact concat contains distinct element flatten index keys length lookup matchkeys merge one range reverse setintersection setproduct setsubtract setunion slice sort sum transpose values zipmap base64decode base64encode base64gzip csvdecode jsondecode jsonencode textdecodebase64 textencodebase64 urlencode yamldecode yamlencode abspath basename dirname file filebase64 fileexists fileset pathexpand templatefile formatdate plantimestamp timeadd timecmp timestamp base64sha256 base64sha512 bcrypt filebase64sha256 filebase64sha512 filemd5 filesha1 filesha256 filesha512 md5 sha1 sha256 sha512 uuid uuidv5 cidrhost cidrnetmask cidrsubnet cidrsubnets can issensitive nonsensitive sensitive tobool tolist tomap tonumber toset tostring try";

const AWKWARD: &[&str] = &[
    "null",
    "aws_vpc.pending.id",
    "var.secret",
    "-1",
    "1e300",
    "-9223372036854775808",
    "0.5",
    "\"\"",
    "\"/(\"",
    "\"%[0]d\"",
    "\"::ffff:0.0.0.0/96\"",
    "[]",
    "{}",
    "[[1], [\"a\"]]",
    "{ a = [null] }",
    "9999999",
];

#[test]
fn functions_never_panic_and_never_quote_a_secret_on_awkward_arguments() {
    let main = r#"
variable "secret" {
  type      = string
  default   = "s3cr3tvalue"
  sensitive = true
}
resource "aws_vpc" "pending" {
  cidr_block = "10.1.0.0/16"
}
"#;
    let (config, diags) = parse_config(&[SourceFile::new("main.tf", main)]);
    assert_eq!(diags, vec![]);
    let (vars, _) = admission::resolve_variables(&config, &Default::default());
    let ev = Evaluator::with_resources(&config, &vars, &AllUnknown);
    let mut calls = 0;
    for name in NAMES.split(' ') {
        let mut arg_lists: Vec<String> = vec![String::new()];
        for a in AWKWARD {
            arg_lists.push((*a).to_owned());
            for b in AWKWARD {
                arg_lists.push(format!("{a}, {b}"));
            }
        }
        for args in arg_lists {
            let src = format!("{name}({args})");
            let expr = parse_expression("expr.tf", &src).unwrap();
            calls += 1;
            if let Err(admission::EvalError::Invalid(d)) = ev.eval(&expr, &Instance::Single) {
                assert!(
                    !d.summary.contains("s3cr3tvalue") && !d.detail.contains("s3cr3tvalue"),
                    "{src} quotes the secret: {}",
                    d.summary
                );
            }
        }
    }
    assert_eq!(
        calls,
        116 * (1 + AWKWARD.len() + AWKWARD.len() * AWKWARD.len())
    );
}
