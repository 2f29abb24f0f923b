//! Integration tests of the configuration model and the admission rules, one binary for the crate.

mod addresses;
mod catalog;
mod config_parse;
mod config_variables;
mod eval_expressions;
mod fuzz_parse_lint;
mod lint_codes;
mod lint_count_index;
mod lint_cycles;
mod lint_static_values;
mod markers;

/// Parse, variables and lint of one `main.tf` with `inputs`, against the contract's catalog.
pub fn lint_main(
    main: &str,
    inputs: &admission::config::VariableInputs,
) -> admission::lint::Linted {
    admission::lint::check(
        &[admission::config::SourceFile::new("main.tf", main)],
        inputs,
        &admission::catalog::contract(),
        None,
    )
    .1
}

use admission::AdmissionPath;

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
fn diagnostic_codes_round_trip_and_warnings_are_the_contract_five() {
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
            "interrupted-create"
        ]
    );
}
