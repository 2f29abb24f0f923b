//! Integration tests of plan and apply, one binary for the crate.

mod apply_dependencies;
mod apply_events;
mod apply_failures;
mod apply_greenfield;
mod apply_lifecycle;
mod apply_parallelism;
mod apply_reads;
mod apply_tags;
mod catalog;
mod damaged_records;
mod destroy_arguments;
mod engine_clock;
mod long_addresses;
mod ownership_ops;
mod ownership_races;
mod plan_blocks;
mod plan_conditions;
mod plan_data_ec2;
mod plan_data_sources;
mod plan_data_sources_iam;
mod plan_dependencies;
mod plan_document;
mod plan_inline_sets;
mod plan_secrets;
mod plan_shapes;
mod plan_tags_all;
mod record_lineage;
mod replace_gaps;
mod saved_plans;
mod slot_marks;
mod store_failures;
mod support;
mod withheld_creates;

use engine::Summary;

#[test]
fn summary_line_reads_as_terraform_users_expect() {
    let changes = Summary {
        add: 1,
        change: 0,
        destroy: 2,
        withheld: 0,
    };
    assert_eq!(
        changes.to_string(),
        "Plan: 1 to add, 0 to change, 2 to destroy."
    );
    assert_eq!(
        Summary::default().to_string(),
        "No changes. The live system matches the configuration."
    );
    // A withheld change is pending: the line never says the live system matches.
    let withheld = Summary {
        withheld: 2,
        ..Summary::default()
    };
    assert_eq!(
        withheld.to_string(),
        "Plan: 0 to add, 0 to change, 0 to destroy, 2 withheld."
    );
    assert_eq!(
        Summary { add: 1, ..withheld }.counts().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy, 2 withheld."
    );
}
