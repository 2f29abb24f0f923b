//! Nested blocks in resource bodies: static and `dynamic` blocks in HCL, the JSON syntax and override
//! files, evaluated into the value the schema's nesting gives them, and the lint's codes for blocks that
//! break the schema.

use admission::{SourceFile, VariableInputs, check};
use expect_test::{Expect, expect};
use provider::schema::{AttributeSchema, BlockSchema, Nesting, ResourceTypeSchema};
use provider::{AdmissionPath, Catalog, Type, Value};

/// The AWS types, and a test type whose blocks take every nesting mode: `rule` (list, at most 2) with a
/// nested `filter` set, `setting` (map by label) and `options` (single).
fn catalog() -> Catalog {
    let string = || Type::String;
    let filter =
        BlockSchema::new(Nesting::Set).with_attribute(AttributeSchema::required("value", string()));
    let rule = BlockSchema::new(Nesting::List)
        .items(0, Some(2))
        .with_attribute(AttributeSchema::required("port", Type::Number))
        .with_attribute(AttributeSchema::optional(
            "cidr",
            string(),
            Value::from("0.0.0.0/0"),
        ))
        .with_attribute(AttributeSchema::block("filter", filter));
    let setting =
        BlockSchema::new(Nesting::Map).with_attribute(AttributeSchema::required("value", string()));
    let options = BlockSchema::new(Nesting::Single).with_attribute(AttributeSchema::optional(
        "enabled",
        Type::Bool,
        Value::Bool(false),
    ));
    let thing = ResourceTypeSchema::new("aws_thing", Some(AdmissionPath::ClientNamed))
        .identity(["name"])
        .with_attribute(AttributeSchema::required("name", string()).force_new())
        .with_attribute(AttributeSchema::optional("note", string(), Value::from("")))
        .with_attribute(AttributeSchema::block("rule", rule))
        .with_attribute(AttributeSchema::block("setting", setting))
        .with_attribute(AttributeSchema::block("options", options));
    crate::contract().merged(Catalog::new([thing]))
}

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

/// Lints the files and renders each instance's value of `attr` as the schema makes it desired, then
/// every diagnostic as `code file:line:col: summary`.
fn check_files(files: &[(&str, &str)], attr: &str, expect: Expect) {
    let files: Vec<SourceFile> = files.iter().map(|(n, t)| SourceFile::new(*n, *t)).collect();
    let catalog = catalog();
    let inputs = VariableInputs::default();
    let (_, linted) = check(&admission::Sources::new(&files, &inputs), &catalog);
    let mut lines = Vec::new();
    for instance in &linted.instances {
        let schema = catalog.get(instance.address.type_name()).unwrap();
        let desired = schema.desired(&instance.static_values, "us-east-1");
        let shown = desired
            .get(attr)
            .map_or("(unset)".to_owned(), Value::to_string);
        lines.push(format!("{} {attr} = {shown}", instance.address));
    }
    for d in &linted.diagnostics {
        let pos = d.pos.as_ref().map(|p| format!(" {p}")).unwrap_or_default();
        lines.push(format!("{}{pos}: {}", d.code, d.summary));
    }
    expect.assert_eq(&lines.join("\n"));
}

fn check_main(main: &str, attr: &str, expect: Expect) {
    let text = format!("{LIVE}{main}");
    check_files(&[("main.tf", &text)], attr, expect);
}

#[test]
fn nested_blocks_static_and_dynamic_make_one_list_in_the_order_written() {
    check_main(
        r#"
variable "ports" {
  default = { web = 443, ssh = 22 }
}
resource "aws_thing" "t" {
  name = "t"
  rule {
    port = 80
  }
  dynamic "rule" {
    for_each = { b = 22 }
    iterator = r
    content {
      port = r.value
      cidr = "10.0.0.0/8"
      dynamic "filter" {
        for_each = ["x-${r.key}", "y"]
        content {
          value = filter.value
        }
      }
    }
  }
}
"#,
        "rule",
        expect![[r#"
            aws_thing.t rule = [{ cidr = "0.0.0.0/0", filter = [], port = 80 }, { cidr = "10.0.0.0/8", filter = [{ value = "x-b" }, { value = "y" }], port = 22 }]"#]],
    );
}

#[test]
fn nested_blocks_labelled_blocks_make_a_map_and_a_single_block_an_object() {
    check_main(
        r#"
resource "aws_thing" "t" {
  name = "t"
  dynamic "setting" {
    for_each = toset(["a", "b"])
    labels   = [setting.key]
    content {
      value = upper(setting.value)
    }
  }
}
resource "aws_thing" "u" {
  name = "u"
  options {
    enabled = true
  }
  setting "c" {
    value = "C"
  }
}
"#,
        "setting",
        expect![[r#"
            aws_thing.t setting = { a = { value = "A" }, b = { value = "B" } }
            aws_thing.u setting = { c = { value = "C" } }"#]],
    );
}

#[test]
fn nested_blocks_a_single_block_is_an_object_and_an_unset_block_type_is_not_managed() {
    check_main(
        r#"
resource "aws_thing" "t" {
  name = "t"
  options {
    enabled = true
  }
}
resource "aws_thing" "u" {
  name = "u"
}
"#,
        "options",
        expect![[r#"
            aws_thing.t options = { enabled = true }
            aws_thing.u options = (unset)"#]],
    );
}

#[test]
fn nested_blocks_in_the_json_syntax_are_properties_and_dynamic_blocks_too() {
    let json = r#"{
  "resource": {
    "aws_thing": {
      "t": {
        "name": "t",
        "rule": [{ "port": 80 }, { "port": "${40 + 3}", "filter": { "value": "v" } }]
      },
      "u": {
        "name": "u",
        "dynamic": {
          "rule": {
            "for_each": "${[1, 2]}",
            "iterator": "it",
            "content": { "port": "${it.value}" }
          }
        }
      }
    }
  }
}"#;
    check_files(
        &[("main.tf", LIVE), ("things.tf.json", json)],
        "rule",
        expect![[r#"
            aws_thing.t rule = [{ cidr = "0.0.0.0/0", filter = [], port = 80 }, { cidr = "0.0.0.0/0", filter = [{ value = "v" }], port = 43 }]
            aws_thing.u rule = [{ cidr = "0.0.0.0/0", filter = [], port = 1 }, { cidr = "0.0.0.0/0", filter = [], port = 2 }]"#]],
    );
}

#[test]
fn nested_blocks_of_a_type_an_override_file_writes_replace_the_primary_ones() {
    let main = format!(
        r#"{LIVE}
resource "aws_thing" "t" {{
  name = "t"
  note = "kept"
  rule {{
    port = 1
  }}
  dynamic "rule" {{
    for_each = [2, 3]
    content {{
      port = rule.value
    }}
  }}
}}
"#
    );
    let over = r#"
resource "aws_thing" "t" {
  rule {
    port = 9
  }
}
"#;
    check_files(
        &[("main.tf", &main), ("main_override.tf", over)],
        "rule",
        expect![[r#"
            aws_thing.t rule = [{ cidr = "0.0.0.0/0", filter = [], port = 9 }]"#]],
    );
}

#[test]
fn nested_blocks_that_break_the_schema_have_their_own_codes() {
    check_main(
        r#"
resource "aws_thing" "t" {
  name = "t"
  rules {
    port = 1
  }
  note {
    x = 1
  }
  options = { enabled = true }
  rule {
    port = 1
    filters {
      value = "v"
    }
  }
  setting {
    value = "no label"
  }
}
resource "aws_thing" "u" {
  name = "u"
  dynamic "rule" {
    for_each = [1, 2, 3]
    content {
      port = rule.value
    }
  }
  dynamic "lifecycle" {
    for_each = []
    content {}
  }
  dynamic "options" {
    content {}
  }
}
"#,
        "rule",
        expect![[r#"
            aws_thing.t rule = [{ cidr = "0.0.0.0/0", filter = [], port = 1 }]
            aws_thing.u rule = [{ cidr = "0.0.0.0/0", filter = [], port = 1 }, { cidr = "0.0.0.0/0", filter = [], port = 2 }, { cidr = "0.0.0.0/0", filter = [], port = 3 }]
            block-as-argument main.tf:13:3: `options` is a nested block type, not an argument
            block-count main.tf:26:3: no more than 2 "rule" block(s) allowed, 3 written
            invalid-dynamic-block main.tf:32:3: `lifecycle` blocks cannot be generated by `dynamic`
            invalid-dynamic-block main.tf:36:3: the `dynamic "options"` block needs `for_each` and a `content` block
            unsupported-block-type main.tf:7:3: `aws_thing` has no block type `rules`
            unsupported-block-type main.tf:10:3: `note` is an argument of `aws_thing`, not a block type
            unsupported-block-type main.tf:14:3: `aws_thing` has no block type `rule.filters`
            unsupported-block-type main.tf:20:3: `setting` blocks take 1 label(s), 0 written"#]],
    );
}

#[test]
fn nested_blocks_versioning_takes_the_v5_block_and_refuses_the_flat_status_showing_it() {
    let files = [SourceFile::new(
        "main.tf",
        format!(
            r#"{LIVE}
resource "aws_s3_bucket_versioning" "v" {{
  bucket = "b"
  status = "Enabled"
}}
resource "aws_s3_bucket_versioning" "w" {{
  bucket = "c"
  versioning_configuration {{
    status     = "Enabled"
    mfa_delete = "Sometimes"
  }}
}}
"#
        ),
    )];
    let inputs = VariableInputs::default();
    let (_, linted) = check(&admission::Sources::new(&files, &inputs), &catalog());
    let lines: Vec<String> = linted
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {}: {} | {}",
                d.code,
                d.pos.as_ref().unwrap(),
                d.summary,
                d.detail
            )
        })
        .collect();
    expect![[r#"
        block-count main.tf:5:1: at least 1 "versioning_configuration" block(s) required, 0 written | fix the arguments to match the resource type's schema
        invalid-argument main.tf:7:3: Unsupported argument: `aws_s3_bucket_versioning` has no argument `status` | `status` is an argument of the nested block `versioning_configuration`: write `versioning_configuration { status = "Enabled" }`
        invalid-argument main.tf:11:3: Invalid value: "versioning_configuration.mfa_delete" is "Sometimes"; expected one of Enabled, Disabled | fix the arguments to match the resource type's schema"#]]
    .assert_eq(&lines.join("\n"));
}
