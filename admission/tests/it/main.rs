//! Integration tests of the configuration model and the admission rules, one binary for the crate.

mod addresses;
mod argument_lists;
mod config_conditions;
mod config_files;
mod config_parse;
mod config_providers;
mod config_variables;
mod data_sources;
mod eval_expressions;
mod eval_fidelity;
mod functions_collection;
mod functions_encoding;
mod functions_files;
mod functions_robust;
mod functions_string;
mod functions_table;
mod fuzz_parse_lint;
mod inline_sets;
mod lint_codes;
mod lint_count_index;
mod lint_cycles;
mod lint_static_values;
mod markers;
mod nested_blocks;
mod parser_suite;

/// Diagnostics as one line each, `code file:line:col address: summary` (position and address when given).
pub fn diagnostic_lines(diags: &[admission::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| {
            let pos = d.pos.as_ref().map(|p| format!(" {p}")).unwrap_or_default();
            let addr = d
                .address
                .as_deref()
                .map(|a| format!(" {a}"))
                .unwrap_or_default();
            format!("{}{pos}{addr}: {}", d.code, d.summary)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The catalog the lint judges the tests' configurations against: the AWS types, and the record-backed
/// `random_id` and `terraform_data` as the engine serves them (written here: the engine depends on this
/// crate).
pub fn contract() -> provider::Catalog {
    use admission::{Type, Value};
    use provider::AdmissionPath;
    use provider::schema::{AttributeSchema, ResourceTypeSchema};
    let record = Some(AdmissionPath::Record);
    awscatalog::catalog().merged(provider::Catalog::new([
        ResourceTypeSchema::new("random_id", record)
            .with_attribute(AttributeSchema::required("byte_length", Type::Number).force_new())
            .with_attribute(
                AttributeSchema::optional(
                    "keepers",
                    Type::Map(Box::new(Type::String)),
                    Value::empty_map(),
                )
                .force_new(),
            )
            .with_attribute(AttributeSchema::computed("hex", Type::String))
            .with_attribute(AttributeSchema::computed("b64_url", Type::String))
            .with_attribute(AttributeSchema::computed("dec", Type::String)),
        ResourceTypeSchema::new("terraform_data", record)
            .with_attribute(AttributeSchema::optional("input", Type::Any, Value::Null))
            .with_attribute(
                AttributeSchema::optional("triggers_replace", Type::Any, Value::Null).force_new(),
            )
            .with_attribute(AttributeSchema::computed("output", Type::Any)),
    ]))
}

/// Parse, variables and lint of one `main.tf` with `inputs`, against the contract's catalog.
pub fn lint_main(main: &str, inputs: &admission::VariableInputs) -> admission::Linted {
    let files = [admission::SourceFile::new("main.tf", main)];
    admission::check(&admission::Sources::new(&files, inputs), &contract()).1
}

use provider::AdmissionPath;

#[test]
fn admission_path_names_match_the_plan_json_contract() {
    let names: Vec<String> = [
        AdmissionPath::ClientNamed,
        AdmissionPath::Marker,
        AdmissionPath::ParentDerived,
        AdmissionPath::ListMatch,
        AdmissionPath::Record,
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    assert_eq!(
        names,
        [
            "client-named",
            "marker",
            "parent-derived",
            "list-match",
            "record"
        ]
    );
}

#[test]
fn diagnostic_codes_round_trip_and_the_warnings_are_the_ones_the_contract_and_the_product_name() {
    use admission::{Code, Severity};
    for code in Code::ALL {
        assert_eq!(Code::from_name(code.as_str()), Some(*code));
    }
    let warnings: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| c.severity() == Severity::Warning)
        .map(|c| c.as_str())
        .collect();
    assert_eq!(
        warnings,
        [
            "unowned",
            "in-the-way",
            "ambiguous-candidates",
            "record-format",
            "store-guarantee",
            "interrupted-create",
            "resource-targeting",
            "backend-ignored",
            "provider-settings-ignored",
            "check-failed",
            "ignore-tags-markers",
            "no-outputs"
        ]
    );
}
