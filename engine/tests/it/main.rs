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
mod long_addresses;
mod ownership_ops;
mod plan_dependencies;
mod plan_secrets;
mod plan_shapes;
mod store_failures;
mod support;

use engine::Summary;

#[test]
fn summary_line_reads_as_terraform_users_expect() {
    let changes = Summary {
        add: 1,
        change: 0,
        destroy: 2,
    };
    assert_eq!(
        changes.to_string(),
        "Plan: 1 to add, 0 to change, 2 to destroy."
    );
    assert_eq!(
        Summary::default().to_string(),
        "No changes. The live system matches the configuration."
    );
}
