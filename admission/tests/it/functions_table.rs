//! The harness of the function tables (`functions_*.rs`): each row is the documentation page it comes
//! from, an expression, and Terraform's result written by hand in the notation of `terraform console`
//! (strings quoted, `[...]` lists and tuples, `{k = v}` maps and objects, `set[...]` sets), or
//! `error: TEXT` for an error whose summary contains TEXT, or `like: REGEX` for a result checked by
//! shape (`uuid`, `timestamp`, `bcrypt`). Unknown and sensitive results render as
//! `unknown(TYPE)` and `sensitive(...)`.
//!
//! Every row is evaluated, and every mismatch reported at once.

use admission::{
    AllUnknown, Config, EvalError, Evaluator, ImpureValues, Instance, ModuleContext, SourceFile,
    Value, parse_config, parse_expression,
};

/// One row: the page (`abs.mdx`, `expressions.md #154`), the expression, the expected result.
pub type Row = (&'static str, &'static str, &'static str);

/// The configuration every row is evaluated in: a sensitive variable, a pending resource (unknown),
/// locals for `try` and `can`.
const CONFIG: &str = r#"
variable "secret" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}
variable "nullobj" {
  type    = any
  default = null
}
variable "big" {
  default = -9223372036854775808
}
variable "l" {
  default = ["a", "b"]
}
variable "m" {
  default = { k = "v" }
}
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
variable "empty_names" {
  type    = list(string)
  default = []
}
variable "tags" {
  type    = map(string)
  default = { env = "dev" }
}
variable "server" {
  type    = object({ name = string, ports = list(number) })
  default = { name = "web", ports = [80] }
}
variable "machines" {
  default = [
    { id = "a", interfaces = [{ name = "eth0" }] },
    { id = "b", interfaces = [{ name = "eth1" }] },
  ]
}
locals {
  foo  = { bar = "baz" }
  tmpl = "Hello, $${name}!"
  list = ["a", "b"]
  map  = { k = "v" }
  names = tolist(["a", "b"])
  pair  = { name = "web" }
}
resource "aws_vpc" "pending" {
  cidr_block = "10.1.0.0/16"
}
"#;

/// Renders a value with its marks visible.
pub fn render(v: &Value) -> String {
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
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Fixed impure values, so that apply-time results can be checked by shape.
pub struct FixedImpure;

impl ImpureValues for FixedImpure {
    fn timestamp(&self) -> String {
        "2026-12-02T10:20:30Z".to_owned()
    }
    fn uuid(&self) -> String {
        "b5ee72a3-54dd-c4b8-551c-4bdc0204cedb".to_owned()
    }
    fn bcrypt_salt(&self) -> Option<[u8; 16]> {
        Some(*b"0123456789abcdef")
    }
}

/// The outcome of one expression, rendered.
pub fn outcome(ev: &Evaluator<'_>, src: &str) -> String {
    let expr = match parse_expression("expr.tf", src) {
        Ok(e) => e,
        Err(d) => return format!("parse error: {}", d.summary),
    };
    match ev.eval(&expr, &Instance::Single) {
        Ok(v) => render(&v),
        Err(EvalError::NotStatic { reference, .. }) => format!("not static: {reference}"),
        Err(EvalError::Invalid(d)) => format!("error: [{}] {}", d.code, d.summary),
    }
}

fn config() -> Config {
    let (config, diags) = parse_config(&[SourceFile::new("main.tf", CONFIG)]);
    assert_eq!(diags, vec![]);
    config
}

/// Whether `got` is what `want` says.
fn matches(got: &str, want: &str) -> bool {
    if let Some(pattern) = want.strip_prefix("like:") {
        return regex::Regex::new(pattern.trim()).is_ok_and(|re| re.is_match(got));
    }
    match want.strip_prefix("error:") {
        Some(text) => got.starts_with("error:") && got.contains(text.trim()),
        None => got == want,
    }
}

/// Evaluates every row in `module` (plan time unless `impure`), and fails listing every mismatch.
pub fn check_in(rows: &[Row], module: &ModuleContext, impure: bool) {
    let config = config();
    let (vars, diags) = admission::resolve_variables(&config, &Default::default());
    assert_eq!(diags, vec![]);
    let mut ev = Evaluator::with_resources(&config, &vars, &AllUnknown).with_module(module);
    if impure {
        ev = ev.with_impure(&FixedImpure);
    }
    let mut failures = Vec::new();
    for (page, src, want) in rows {
        let got = outcome(&ev, src);
        if !matches(&got, want) {
            failures.push(format!("{page}: {src}\n    want: {want}\n    got:  {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// Runs `f` with the plan-time evaluator the rows are evaluated in, for checks a row cannot express.
pub fn with_evaluator(f: impl FnOnce(&Evaluator<'_>)) {
    let config = config();
    let (vars, diags) = admission::resolve_variables(&config, &Default::default());
    assert_eq!(diags, vec![]);
    f(&Evaluator::with_resources(&config, &vars, &AllUnknown));
}

/// [`check_in`] at plan time in the current directory.
pub fn check(rows: &[Row]) {
    check_in(rows, &ModuleContext::default(), false);
}
